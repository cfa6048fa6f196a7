import { readdirSync, readFileSync } from 'node:fs';

/** Resident memory of one process and of each of its descendants (its sandbox workers), in bytes; Linux /proc. */
export interface ProcessTreeRss {
  /** This process: the service's HTTP/WebSocket/gRPC edges and episode bookkeeping (and, in a test, the test). */
  selfBytes: number;
  /** Each descendant process by pid: the sandbox workers that hold the isolates. */
  childBytes: Record<number, number>;
  totalBytes: number;
}

/** RSS of `pid` and every process below it, read from /proc (so the sandbox workers' isolates are counted). */
export function processTreeRss(pid = process.pid): ProcessTreeRss {
  const childBytes: Record<number, number> = {};
  const visit = (parent: number) => {
    for (const child of childrenOf(parent)) {
      childBytes[child] = rssBytes(child);
      visit(child);
    }
  };
  visit(pid);
  const selfBytes = rssBytes(pid);
  const totalBytes = Object.values(childBytes).reduce((sum, bytes) => sum + bytes, selfBytes);
  return { selfBytes, childBytes, totalBytes };
}

/** VmRSS of a process; 0 once it has exited. */
function rssBytes(pid: number): number {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? 0 : Number(kb) * 1024;
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return threads.flatMap((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
}

/** MiB, rounded, for messages and bench lines. */
export const mib = (bytes: number): number => Math.round(bytes / 2 ** 20);
