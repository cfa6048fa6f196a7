import type { Readable, Writable } from 'node:stream';

/**
 * Lines of V8's heap report ("<--- Last few GCs --->", one line per collection, the blank lines around them): an
 * isolate that reaches its memory limit makes V8 print it to the worker's stderr, and the pool already reports that
 * step as `memory_limit`.
 */
const V8_HEAP_REPORT = [/^<--- (Last few GCs|JS stacktrace) --->$/, /^\[\d+:0x[0-9a-f]+\]\s+\d+ ms: /, /^\s*$/];

const isHeapReport = (line: string) => V8_HEAP_REPORT.some((re) => re.test(line));

/** Forwards a sandbox worker's stderr to `out` line by line, without V8's heap report; every other line as it is. */
export function forwardWorkerStderr(stream: Readable, out: Pick<Writable, 'write'> = process.stderr): void {
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    const kept = lines.filter((line) => !isHeapReport(line));
    if (kept.length > 0) out.write(kept.join('\n') + '\n');
  });
  stream.on('end', () => {
    if (partial !== '' && !isHeapReport(partial)) out.write(partial + '\n');
  });
}
