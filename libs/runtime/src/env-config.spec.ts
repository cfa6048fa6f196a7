import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ConfigError, envInt, HostPortSchema, loadEnvConfig, RedisUrlSchema, serviceEnvShape } from './env-config';

const Schema = z.object({
  PORT: envInt(0).max(65535).default(9000),
  REDIS_URL: RedisUrlSchema.default('redis://127.0.0.1:6379'),
  PEER: HostPortSchema,
  TOKEN: z.string().min(16).optional(),
});

describe('loadEnvConfig', () => {
  it('reads only the schema keys, coerces numbers and treats empty strings as unset', () => {
    expect(loadEnvConfig('svc', Schema, { PORT: '81', PEER: 'learner:50061', REDIS_URL: '', OTHER: 'x' })).toEqual({
      PORT: 81,
      REDIS_URL: 'redis://127.0.0.1:6379',
      PEER: 'learner:50061',
    });
  });

  it('names every bad or missing variable in one error and never echoes a secret', () => {
    let error: unknown;
    try {
      loadEnvConfig('svc', Schema, { PORT: 'eighty', TOKEN: 'short-secret' }, ['TOKEN']);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/^invalid svc configuration: /);
    expect(message).toMatch(/PORT="eighty"/);
    expect(message).toMatch(/PEER is required/);
    expect(message).toMatch(/TOKEN=\(hidden\)/);
    expect(message).not.toContain('short-secret');
  });

  it('serves gRPC on loopback unless GRPC_HOST is set, and never echoes a *_TOKEN, even one not named a secret', () => {
    const Service = z.object(serviceEnvShape(9000));
    expect(loadEnvConfig('svc', Service, {})).toMatchObject({ HOST: '0.0.0.0', GRPC_HOST: '127.0.0.1' });
    expect(loadEnvConfig('svc', Service, {}).GRPC_TOKEN).toBeUndefined();
    expect(loadEnvConfig('svc', Service, { GRPC_HOST: '0.0.0.0' }).GRPC_HOST).toBe('0.0.0.0');
    for (const [value, reason] of [
      ['short-grpc', /at least 16 characters/],
      ['change-me-grpc-token-of-32-characters', /placeholder/],
    ] as const) {
      const load = () => loadEnvConfig('svc', Service, { GRPC_TOKEN: value });
      expect(load).toThrow(reason);
      expect(load).toThrow(/GRPC_TOKEN=\(hidden\)/);
      expect(load).not.toThrow(value);
    }
  });
});
