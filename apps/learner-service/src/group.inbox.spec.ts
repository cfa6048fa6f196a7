import type { LearnGroupJob } from '@fathom/contracts';
import { describe, expect, it } from 'vitest';
import { GroupInbox, StepAbortedError } from './group.inbox';

const group = (step: number, groupId: string, runId = 'run-1') =>
  ({ runId, step, groupId, taskId: 't', policyVersion: 0 }) as LearnGroupJob;

describe('GroupInbox', () => {
  it('resolves when every expected group arrived, holding groups that came before the wait', async () => {
    const inbox = new GroupInbox();
    expect(inbox.deliver(group(1, 'g0'))).toBe(true);
    const waiting = inbox.waitFor('run-1', 1, ['g0', 'g1'], new AbortController().signal);
    expect(inbox.pending('run-1', 1)).toEqual(['g1']);
    expect(inbox.deliver(group(1, 'g9'))).toBe(false);
    inbox.deliver(group(1, 'g1'));
    expect([...(await waiting).keys()].sort()).toEqual(['g0', 'g1']);
  });

  it('drops re-deliveries of a finished step and keeps runs apart', async () => {
    const inbox = new GroupInbox();
    inbox.deliver(group(1, 'g0'));
    await inbox.waitFor('run-1', 1, ['g0'], new AbortController().signal);
    expect(inbox.deliver(group(1, 'g0'))).toBe(false);
    expect(inbox.deliver(group(1, 'g0', 'run-2'))).toBe(true);
    inbox.reset('run-1');
    expect(inbox.deliver(group(1, 'g0'))).toBe(true);
  });

  it('rejects with the abort reason when the wait is aborted', async () => {
    const inbox = new GroupInbox();
    const controller = new AbortController();
    const waiting = inbox.waitFor('run-1', 2, ['g0'], controller.signal);
    controller.abort('step 2 timed out');
    await expect(waiting).rejects.toThrow(StepAbortedError);
    await expect(waiting).rejects.toThrow('step 2 timed out');
    expect(inbox.pending('run-1', 2)).toEqual([]);
  });
});
