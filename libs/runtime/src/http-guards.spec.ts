import { describe, expect, it } from 'vitest';
import {
  checkBearerToken,
  checkHost,
  checkOrigin,
  HostNameListSchema,
  isLoopbackHost,
  OriginListSchema,
  verifyUtf8,
} from './http-guards';

describe('checkHost', () => {
  const check = checkHost(['admin.internal'], 'ADMIN_ALLOWED_HOSTS');

  it.each(['127.0.0.1:8080', '127.0.0.1', '127.8.9.1:1', 'localhost:8080', 'LOCALHOST', '[::1]:8080', '[::1]'])(
    'answers Host %s (loopback, any port)',
    (host) => expect(check(host)).toBeNull(),
  );

  it('answers a configured name, with any port', () => {
    expect(check('admin.internal:8080')).toBeNull();
    expect(check('Admin.Internal')).toBeNull();
  });

  it.each([
    'evil.example:8080',
    'localhost.evil.example',
    '127.0.0.1.evil.example',
    '10.0.0.5:8080',
    '127.0.0.1@evil.example',
    'admin.internal.evil',
    '',
  ])('refuses Host %j, naming it and the variable', (host) => {
    expect(check(host)).toMatch(
      new RegExp(`Host ${JSON.stringify(host).replace(/[.[\]]/g, '\\$&')}.*ADMIN_ALLOWED_HOSTS`),
    );
  });

  it('refuses a request without a Host header', () => {
    expect(check(undefined)).toMatch(/without a Host header/);
  });
});

describe('checkOrigin', () => {
  const check = checkOrigin(['https://notebook.example.com'], 'ENV_ALLOWED_ORIGINS');

  it('passes requests without Origin (non-browser clients), from the own loopback origin and configured ones', () => {
    expect(check(undefined, 'evil.example')).toBeNull();
    expect(check('http://127.0.0.1:8000', '127.0.0.1:8000')).toBeNull();
    expect(check('http://localhost:8000', 'localhost:8000')).toBeNull();
    expect(check('http://[::1]:8000', '[::1]:8000')).toBeNull();
    expect(check('https://notebook.example.com', 'env:8000')).toBeNull();
  });

  it.each([
    ['http://evil.example', '127.0.0.1:8000'],
    ['http://evil.example:8000', 'evil.example:8000'],
    ['http://127.0.0.1:3000', '127.0.0.1:8000'],
    ['http://localhost:8000', '127.0.0.1:8000'],
    ['null', '127.0.0.1:8000'],
    ['https://notebook.example.com.evil', '127.0.0.1:8000'],
  ])('refuses Origin %s addressed to %s, naming it', (origin, host) => {
    expect(check(origin, host)).toContain(JSON.stringify(origin));
  });
});

describe('checkBearerToken', () => {
  it('passes everything without a token, and only the right token with one', () => {
    expect(checkBearerToken(undefined, 'T')(undefined)).toBeNull();
    const check = checkBearerToken('0123456789abcdef', 'OPENENV_TOKEN');
    expect(check('Bearer 0123456789abcdef')).toBeNull();
    expect(check(undefined)).toMatch(/Bearer <OPENENV_TOKEN>/);
    expect(check('Basic abc')).toMatch(/not of the form/);
    expect(check('Bearer wrong')).toBe('invalid bearer token');
  });
});

describe('config lists', () => {
  it('read host names and origins, and refuse what is not one', () => {
    expect(HostNameListSchema.parse(' Admin.Internal, 10.0.0.5,')).toEqual(['admin.internal', '10.0.0.5']);
    expect(HostNameListSchema.safeParse('admin.internal:8080').success).toBe(false);
    expect(HostNameListSchema.safeParse('http://admin.internal').success).toBe(false);
    expect(OriginListSchema.parse('https://a.example.com, http://localhost:3000')).toEqual([
      'https://a.example.com',
      'http://localhost:3000',
    ]);
    expect(OriginListSchema.safeParse('https://a.example.com/path').success).toBe(false);
    expect(OriginListSchema.safeParse('a.example.com').success).toBe(false);
  });

  it('isLoopbackHost knows the loopback names', () => {
    expect(['127.0.0.1', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'].every(isLoopbackHost)).toBe(true);
    expect(['0.0.0.0', '10.0.0.1', 'example.com', '::'].some(isLoopbackHost)).toBe(false);
  });
});

describe('verifyUtf8', () => {
  it('passes UTF-8 and throws a 400 for anything else', () => {
    expect(() => verifyUtf8(null, null, Buffer.from('{"name":"ünïcode 🚀"}'))).not.toThrow();
    const bad = Buffer.concat([Buffer.from('{"checkpoint":"data/'), Buffer.from([0xff]), Buffer.from('"}')]);
    expect(() => verifyUtf8(null, null, bad)).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => verifyUtf8(null, null, Buffer.from([0xed, 0xa0, 0x80]))).toThrow(/not valid UTF-8/);
  });
});
