import { describe, expect, it } from 'vitest';
import { QueueError } from './errors';
import { checkHandlers, handlerFor } from './handlers';

const noop = async () => undefined;

describe('checkHandlers (the boot check)', () => {
  it('accepts exactly one handler per expected job name', () => {
    const map = checkHandlers(
      [handlerFor('rollout.group', noop), handlerFor('reward.group', noop)],
      ['rollout.group', 'reward.group'],
    );
    expect([...map.keys()].sort()).toEqual(['reward.group', 'rollout.group']);
  });

  it('names every missing, duplicate and unexpected job name in one error', () => {
    const attempt = () =>
      checkHandlers(
        [handlerFor('rollout.group', noop), handlerFor('rollout.group', noop), handlerFor('learn.group', noop)],
        ['rollout.group', 'reward.group'],
      );
    expect(attempt).toThrow(QueueError);
    expect(attempt).toThrow(/missing: reward\.group; duplicate: rollout\.group; unexpected: learn\.group/);
    try {
      attempt();
    } catch (error) {
      expect((error as QueueError).code).toBe('HANDLER_MISMATCH');
      expect((error as QueueError).details).toEqual({
        missing: ['reward.group'],
        duplicate: ['rollout.group'],
        unexpected: ['learn.group'],
      });
    }
  });

  it('defaults to every job name of the contract', () => {
    expect(() => checkHandlers([handlerFor('learn.group', noop)])).toThrow(/missing: rollout\.group, reward\.group/);
  });
});
