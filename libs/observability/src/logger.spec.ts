import { describe, expect, it } from 'vitest';
import { createLogger } from './logger';

describe('createLogger', () => {
  it('writes one JSON object per line with service, level, bindings and fields', () => {
    const lines: string[] = [];
    const log = createLogger({ service: 'svc', write: (l) => lines.push(l) }).child({ episode_id: 'e1' });
    log.info('hello', { n: 2, err: new Error('boom') });
    expect(lines).toHaveLength(1);
    expect(lines[0].endsWith('\n')).toBe(true);
    const rec = JSON.parse(lines[0]);
    expect(rec).toMatchObject({ level: 'info', service: 'svc', msg: 'hello', episode_id: 'e1', n: 2 });
    expect(rec.err).toMatchObject({ name: 'Error', message: 'boom' });
    expect(Number.isNaN(Date.parse(rec.time))).toBe(false);
  });

  it('drops lines below the level and survives unserialisable fields', () => {
    const lines: string[] = [];
    const log = createLogger({ service: 's', level: 'warn', write: (l) => lines.push(l) });
    log.info('dropped');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    log.warn('kept', { cyclic, big: 1n });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ level: 'warn', msg: 'kept' });
  });
});
