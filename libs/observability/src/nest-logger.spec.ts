import { describe, expect, it } from 'vitest';
import { createLogger } from './logger';
import { NestJsonLogger } from './nest-logger';

describe('NestJsonLogger', () => {
  it("demotes Nest's log and verbose lines to debug and keeps warn and error with context and trace", () => {
    const lines: string[] = [];
    const nest = new NestJsonLogger(createLogger({ service: 'svc', level: 'debug', write: (l) => lines.push(l) }));
    nest.log('started', 'NestFactory');
    nest.verbose('mapped', 'RouterExplorer');
    nest.warn('slow', 'Ctx');
    nest.error('boom', 'stack here', 'Ctx');
    const records = lines.map((l) => JSON.parse(l));
    expect(records.map((r) => r.level)).toEqual(['debug', 'debug', 'warn', 'error']);
    expect(records[0]).toMatchObject({ msg: 'started', context: 'NestFactory' });
    expect(records[3]).toMatchObject({ msg: 'boom', trace: 'stack here', context: 'Ctx' });
  });

  it('drops start-up chatter at the default info level', () => {
    const lines: string[] = [];
    const nest = new NestJsonLogger(createLogger({ service: 'svc', write: (l) => lines.push(l) }));
    nest.log('started');
    nest.debug('detail');
    expect(lines).toHaveLength(0);
  });
});
