import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { forwardWorkerStderr } from './worker-stderr';

describe('forwardWorkerStderr', () => {
  it("drops V8's heap report and forwards every other line, across chunk edges", async () => {
    const stream = new PassThrough();
    const written: string[] = [];
    forwardWorkerStderr(stream, { write: (text: string) => written.push(text) > 0 });
    stream.write('\n<--- Last few GCs --->\n\n[31564:0x1a3f6000]      280 ms: Mark-Compact (reduce) 26.6 (29.3) -> 26');
    stream.write('.6 (28.3) MB, pooled: 0 MB\n\nsandbox worker: a real warn');
    stream.end('ing\n<--- JS stacktrace --->\nlast line');
    await new Promise((resolve) => stream.on('end', resolve));
    expect(written.join('')).toBe('sandbox worker: a real warning\nlast line\n');
  });
});
