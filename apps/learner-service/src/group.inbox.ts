import type { LearnGroupJob } from '@fathom/contracts';

/** Why a step's wait for its groups ended without them. */
export class StepAbortedError extends Error {
  override name = 'StepAbortedError';
}

interface Waiter {
  runId: string;
  step: number;
  expected: Set<string>;
  received: Map<string, LearnGroupJob>;
  resolve: (groups: Map<string, LearnGroupJob>) => void;
}

/**
 * Scored groups arriving from the `learn` queue, matched to the step that waits for them. A group nobody waits for
 * yet is held (a fast worker may finish before the learner starts waiting); a group of a step already trained is a
 * re-delivery and is dropped (delivery is at-least-once; the step's update happened exactly once).
 */
export class GroupInbox {
  private readonly waiters = new Map<string, Waiter>();
  private readonly early = new Map<string, Map<string, LearnGroupJob>>();
  private readonly done = new Map<string, number>();

  /** Delivers one group; returns false when it was a re-delivery for a finished step. */
  deliver(group: LearnGroupJob): boolean {
    if (group.step <= (this.done.get(group.runId) ?? 0)) return false;
    const key = `${group.runId}:${group.step}`;
    const waiter = this.waiters.get(key);
    if (waiter === undefined) {
      const held = this.early.get(key) ?? new Map<string, LearnGroupJob>();
      held.set(group.groupId, group);
      this.early.set(key, held);
      return true;
    }
    if (!waiter.expected.has(group.groupId)) return false;
    waiter.received.set(group.groupId, group);
    if (waiter.received.size === waiter.expected.size) {
      this.waiters.delete(key);
      waiter.resolve(waiter.received);
    }
    return true;
  }

  /**
   * Resolves with every expected group of (runId, step), or rejects with StepAbortedError when `signal` aborts (a
   * timeout, a dead-lettered group, a stop). Afterwards re-deliveries of this step and older ones are dropped.
   */
  async waitFor(
    runId: string,
    step: number,
    groupIds: readonly string[],
    signal: AbortSignal,
  ): Promise<Map<string, LearnGroupJob>> {
    const key = `${runId}:${step}`;
    const received = new Map<string, LearnGroupJob>();
    for (const [id, group] of this.early.get(key) ?? []) if (groupIds.includes(id)) received.set(id, group);
    this.early.delete(key);
    try {
      if (received.size === groupIds.length) return received;
      return await new Promise<Map<string, LearnGroupJob>>((resolve, reject) => {
        const waiter: Waiter = { runId, step, expected: new Set(groupIds), received, resolve };
        this.waiters.set(key, waiter);
        const abort = () => {
          this.waiters.delete(key);
          reject(new StepAbortedError(String(signal.reason ?? 'aborted')));
        };
        if (signal.aborted) abort();
        else signal.addEventListener('abort', abort, { once: true });
      });
    } finally {
      this.done.set(runId, Math.max(step, this.done.get(runId) ?? 0));
      for (const k of this.early.keys())
        if (k.startsWith(`${runId}:`) && Number(k.split(':')[1]) <= step) this.early.delete(k);
    }
  }

  /** The expected groups of (runId, step) that have not arrived yet (empty when nobody waits for the step). */
  pending(runId: string, step: number): string[] {
    const waiter = this.waiters.get(`${runId}:${step}`);
    return waiter ? [...waiter.expected].filter((id) => !waiter.received.has(id)) : [];
  }

  /** Forgets a run (it stopped): its waiters stay until their signals abort. */
  reset(runId: string): void {
    this.done.delete(runId);
    for (const k of this.early.keys()) if (k.startsWith(`${runId}:`)) this.early.delete(k);
  }
}
