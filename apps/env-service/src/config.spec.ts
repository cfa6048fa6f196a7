import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  it('requires INFERENCE_ADDRESS and names it', () => {
    expect(() => loadConfig({})).toThrow(ConfigError);
    expect(() => loadConfig({})).toThrow(/INFERENCE_ADDRESS is required/);
  });

  it('fills defaults and coerces numbers', () => {
    const config = loadConfig({ INFERENCE_ADDRESS: 'rollout-worker:50052', MAX_CONCURRENT_ENVS: '8' });
    expect(config).toMatchObject({
      HTTP_PORT: 8000,
      GRPC_PORT: 50051,
      MAX_CONCURRENT_ENVS: 8,
      MAX_BODY_BYTES: 4 * 1024 * 1024,
      MAX_BODY_BYTES_IN_FLIGHT: 64 * 1024 * 1024,
    });
    expect(config.DATASET_PATH).toBeUndefined();
  });

  it('names each invalid variable with its value', () => {
    const error = (() => {
      try {
        loadConfig({ INFERENCE_ADDRESS: 'no-port', HTTP_PORT: 'eighty', LOG_LEVEL: 'loud' });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toContain('INFERENCE_ADDRESS="no-port"');
    expect(error!.message).toContain('HTTP_PORT="eighty"');
    expect(error!.message).toContain('LOG_LEVEL="loud"');
  });
});
