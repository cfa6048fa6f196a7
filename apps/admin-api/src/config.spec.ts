import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  it('has defaults that work on one machine', () => {
    expect(loadConfig({})).toMatchObject({
      NODE_ENV: 'development',
      HTTP_PORT: 8080,
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/fathom',
      REDIS_URL: 'redis://127.0.0.1:6379',
      QUEUE_PREFIX: 'fathom',
      MAX_BODY_BYTES: 1024 * 1024,
    });
    expect(loadConfig({}).ADMIN_TOKEN).toBeUndefined();
  });

  it('names every bad variable and ignores unrelated ones', () => {
    const attempt = () =>
      loadConfig({ HTTP_PORT: '70000', REDIS_URL: 'localhost:6379', DATABASE_URL: 'mysql://x', PATH: '/bin' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/HTTP_PORT="70000": .*65535/);
    expect(attempt).toThrow(/REDIS_URL="localhost:6379": expected a redis:\/\/ URL/);
    expect(attempt).toThrow(/DATABASE_URL="mysql:\/\/x": expected a postgresql:\/\/ URL/);
  });

  it("refuses the manifests' placeholder token without printing it", () => {
    const placeholder = 'change-me-admin-token-of-32-characters';
    const attempt = () => loadConfig({ ADMIN_TOKEN: placeholder, NODE_ENV: 'production' });
    expect(attempt).toThrow(/ADMIN_TOKEN=\(hidden\): is a placeholder .*openssl rand -hex 32/);
    expect(attempt).not.toThrow(new RegExp(placeholder));
    expect(loadConfig({ ADMIN_TOKEN: 'a'.repeat(32), NODE_ENV: 'production' }).ADMIN_TOKEN).toBe('a'.repeat(32));
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ HTTP_PORT: '', ADMIN_TOKEN: '' }).HTTP_PORT).toBe(8080);
  });
});
