import { ConfigError } from '@fathom/runtime';
import { DEFAULT_POLICY_DIR } from '@fathom/training';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';

describe('rollout-worker config', () => {
  it('works on one machine with no variables set', () => {
    expect(loadConfig({})).toMatchObject({ REDIS_URL: 'redis://127.0.0.1:6379', QUEUE_PREFIX: 'fathom' });
  });

  it('serves Inference on 50081 with the shipped default policy unless told otherwise', () => {
    expect(loadConfig({})).toMatchObject({ INFERENCE_PORT: 50081, INFERENCE_CHECKPOINT: DEFAULT_POLICY_DIR });
    expect(loadConfig({ INFERENCE_PORT: '0', INFERENCE_CHECKPOINT: '/models/sft/final' })).toMatchObject({
      INFERENCE_PORT: 0,
      INFERENCE_CHECKPOINT: '/models/sft/final',
    });
    expect(() => loadConfig({ INFERENCE_PORT: '-1' })).toThrow(/INFERENCE_PORT="-1"/);
  });

  it('stops at boot naming each bad variable', () => {
    expect(() => loadConfig({ REDIS_URL: 'http://x', HTTP_PORT: '70000' })).toThrow(ConfigError);
    expect(() => loadConfig({ REDIS_URL: 'http://x', HTTP_PORT: '70000' })).toThrow(
      /invalid rollout-worker configuration: .*HTTP_PORT="70000".*REDIS_URL="http:\/\/x"|invalid rollout-worker configuration: .*REDIS_URL="http:\/\/x".*HTTP_PORT="70000"/,
    );
  });
});
