import { ConfigError, runtimeConfigOf } from '@fathom/runtime';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';

describe('learner-service config', () => {
  it('works on one machine with no variables set', () => {
    expect(loadConfig({})).toMatchObject({ REDIS_URL: 'redis://127.0.0.1:6379', QUEUE_PREFIX: 'fathom' });
  });

  it('stops at boot naming each bad variable', () => {
    expect(() => loadConfig({ REDIS_URL: 'http://x', HTTP_PORT: '70000' })).toThrow(ConfigError);
    expect(() => loadConfig({ REDIS_URL: 'http://x', HTTP_PORT: '70000' })).toThrow(
      /invalid learner-service configuration: .*HTTP_PORT="70000".*REDIS_URL="http:\/\/x"|invalid learner-service configuration: .*REDIS_URL="http:\/\/x".*HTTP_PORT="70000"/,
    );
  });

  it('leaves the thread count to the runtime default unless INTRA_OP_THREADS names one', () => {
    expect(runtimeConfigOf(loadConfig({}))).toEqual({ executionProvider: 'cpu' });
    expect(runtimeConfigOf(loadConfig({ INTRA_OP_THREADS: '3', EXECUTION_PROVIDER: 'cuda' }))).toEqual({
      executionProvider: 'cuda',
      intraOpThreads: 3,
    });
    expect(() => loadConfig({ INTRA_OP_THREADS: '-1' })).toThrow(/INTRA_OP_THREADS="-1"/);
  });
});
