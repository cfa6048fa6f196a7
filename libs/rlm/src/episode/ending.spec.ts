import { describe, expect, it } from 'vitest';
import { episodeEnd } from './ending';

const step = (answer: string | null, error: string | null, alive = true) => ({
  answer,
  error: error === null ? null : { code: error as 'runtime', message: `${error} happened` },
  alive,
});

describe('episodeEnd: the one rule of when an episode ends', () => {
  it('ends on an answer, before any other rule (a dead REPL, the turn limit)', () => {
    expect(episodeEnd(step('teal', null), 1, 4)).toEqual({ status: 'ok', stopReason: 'answer' });
    expect(episodeEnd(step('teal', 'timeout', false), 4, 4)).toEqual({ status: 'ok', stopReason: 'answer' });
  });

  it('ends a dead REPL as its error classifies it, and the machinery failing as infra', () => {
    expect(episodeEnd(step(null, 'cpu_limit', false), 1, 4)).toEqual({
      status: 'timeout',
      stopReason: 'sandbox_timeout',
    });
    expect(episodeEnd(step(null, 'memory_limit', false), 1, 4)).toEqual({
      status: 'sandbox_error',
      stopReason: 'sandbox_fatal',
    });
    expect(episodeEnd(step(null, 'step_limit', false), 1, 4)).toEqual({
      status: 'truncated',
      stopReason: 'turn_limit',
    });
    expect(episodeEnd(step(null, 'worker_crashed', false), 1, 4)).toEqual({
      infra: 'worker_crashed: worker_crashed happened',
    });
    expect(episodeEnd(step(null, null, false), 1, 4)).toEqual({ status: 'sandbox_error', stopReason: 'sandbox_fatal' });
  });

  it('ends at the turn limit, and otherwise goes on, an error the REPL survives included', () => {
    expect(episodeEnd(step(null, null), 4, 4)).toEqual({ status: 'truncated', stopReason: 'turn_limit' });
    expect(episodeEnd(step(null, null), 3, 4)).toBeNull();
    expect(episodeEnd(step(null, 'runtime'), 3, 4)).toBeNull();
  });
});
