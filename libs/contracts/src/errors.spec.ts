import { describe, expect, it } from 'vitest';
import { errorClass, FathomError } from './errors';

type ExampleCode = 'INVALID_CONFIG' | 'NO_DATA';

class ExampleError extends FathomError<ExampleCode> {
  override readonly name = 'ExampleError';
}

describe('FathomError', () => {
  it('carries its code, message, context and cause', () => {
    const cause = new Error('disk full');
    const error = new ExampleError('NO_DATA', 'no usable data', { taskId: 't1', step: 3 }, { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(FathomError);
    expect(error).toMatchObject({ name: 'ExampleError', code: 'NO_DATA', message: 'no usable data' });
    expect(error.context).toEqual({ taskId: 't1', step: 3 });
    expect(error.cause).toBe(cause);
  });

  it('has an empty context when the thrower knows none', () => {
    expect(new ExampleError('INVALID_CONFIG', 'bad').context).toEqual({});
  });

  it('accepts only upper-case code sets', () => {
    // @ts-expect-error a lower-case code set is refused at compile time
    class LowerCaseError extends FathomError<'invalid_config'> {}
    expect(new LowerCaseError('invalid_config', 'bad').code).toBe('invalid_config');
  });
});

describe('errorClass', () => {
  class TableError extends errorClass<ExampleCode>('TableError', {
    INVALID_CONFIG: 'invalid example config',
    NO_DATA: (detail) => `no data in ${detail}`,
  }) {}

  it('words the message as `summary: detail` from the table', () => {
    const error = new TableError('INVALID_CONFIG', 'lr: too big');
    expect(error.message).toBe('invalid example config: lr: too big');
    expect(error).toMatchObject({ name: 'TableError', code: 'INVALID_CONFIG' });
    expect(error.context).toEqual({});
  });

  it('lets a function word a message of another form', () => {
    expect(new TableError('NO_DATA', 'tasks.jsonl').message).toBe('no data in tasks.jsonl');
    expect(TableError.messageOf('NO_DATA', 'tasks.jsonl')).toBe('no data in tasks.jsonl');
  });

  it('carries the context and the cause, and is both a FathomError and its own class', () => {
    const cause = new Error('disk full');
    const error = new TableError('NO_DATA', 'tasks.jsonl', { runId: 'r1', step: 2 }, { cause });
    expect(error.context).toEqual({ runId: 'r1', step: 2 });
    expect(error.cause).toBe(cause);
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(FathomError);
    expect(error).toBeInstanceOf(TableError);
    expect(new ExampleError('NO_DATA', 'x')).not.toBeInstanceOf(TableError);
  });

  it('keeps the classes of two tables apart', () => {
    class OtherError extends errorClass<ExampleCode>('OtherError', { INVALID_CONFIG: 'a', NO_DATA: 'b' }) {}
    expect(new OtherError('NO_DATA', 'x')).not.toBeInstanceOf(TableError);
    expect(new TableError('NO_DATA', 'x')).not.toBeInstanceOf(OtherError);
  });

  it('needs a wording for every code', () => {
    // @ts-expect-error NO_DATA has no wording
    errorClass<ExampleCode>('PartialError', { INVALID_CONFIG: 'a' });
  });
});
