import { readFileSync } from 'node:fs';

/**
 * The process-level memory cap of sandbox workers. An isolate's `memoryLimit` bounds its V8 heap, but some
 * allocations escape it while the isolate's thread is stuck in code V8 cannot interrupt: `new Array(2 ** 31).fill(1)`
 * or an array of arrays grown without bound take a worker past 1.4 GB within the 10 s stuck-step kill. The pool
 * therefore samples each busy worker's resident size and kills a worker that has grown more than its steps may.
 *
 * Each step (and each open, which copies a document in and may create an isolate) is granted an allowance of growth.
 * A worker has outgrown its cap when, for some step running in it, the worker grew since that step began by more than
 * the allowances of every step that ran and every open made while it ran, that step's included. A worker running one
 * step alone is therefore stopped about one allowance above where it stood; the bound never accumulates over a long
 * busy period, since it only counts what overlapped one running step, and a step is bounded in time.
 */

/**
 * What a step with an isolate heap limit of `memoryMb` may add to its worker's resident size, in MiB. Measured on a
 * 128 MiB isolate: guests stopped by the heap limit, or by the CPU limit just below it, grew their worker by up to
 * 153 MB (V8's young generation, array buffers and malloc'd memory lie outside the heap limit); a 32 MiB one by up to
 * 50 MB.
 */
export function stepAllowanceMb(memoryMb: number): number {
  return 1.5 * memoryMb + 64;
}

/** What opening an episode may add: the document in the worker's cache and in the isolate, and a new warm isolate. */
export function openAllowanceMb(ctxChars: number): number {
  return 16 + (ctxChars * 8) / 2 ** 20;
}

/** Resident size of a process in MiB (`VmRSS` of /proc/<pid>/status), or null where it cannot be read. */
export function residentMb(pid: number): number | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return null;
  }
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return match ? Number(match[1]) / 1024 : null;
}

/** Whether this system reports resident sizes (Linux's /proc); elsewhere the cap is the isolate's heap limit alone. */
export const RESIDENT_SIZE_READABLE = residentMb(process.pid) !== null;

interface RunningStep {
  /** The worker's resident size when the step began. */
  startMb: number;
  /** `granted` when it began, its own allowance not yet added. */
  grantedBefore: number;
  /** Allowances of the steps already running when it began: they may still grow while it runs. */
  runningMb: number;
  allowanceMb: number;
}

/** The allowances of one worker process's steps (keyed by `K`) and opens (see the module comment). */
export class MemoryLedger<K> {
  /** Every allowance granted so far, in MiB; only differences of it are used. */
  private granted = 0;
  private readonly running = new Map<K, RunningStep>();

  /** Steps running now. */
  get steps(): number {
    return this.running.size;
  }

  /** The step running now when it is the only one: the one that outgrew the cap, if the worker has. */
  get sole(): K | undefined {
    return this.running.size === 1 ? this.running.keys().next().value : undefined;
  }

  /** A step began, with the worker at `residentMb`. */
  begin(step: K, allowanceMb: number, residentMb: number): void {
    let runningMb = 0;
    for (const other of this.running.values()) runningMb += other.allowanceMb;
    this.running.set(step, { startMb: residentMb, grantedBefore: this.granted, runningMb, allowanceMb });
    this.granted += allowanceMb;
  }

  end(step: K): void {
    this.running.delete(step);
  }

  /** Growth that is not a step's, such as an open, allowed to every step running now. */
  grant(allowanceMb: number): void {
    this.granted += allowanceMb;
  }

  /** Whether the worker, now at `residentMb`, has grown more than its running steps allow. */
  outgrown(residentMb: number): boolean {
    for (const step of this.running.values()) {
      if (residentMb - step.startMb > this.granted - step.grantedBefore + step.runningMb) return true;
    }
    return false;
  }
}
