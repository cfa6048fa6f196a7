import { describe, expect, it } from 'vitest';
import { FathomError } from './errors';

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
