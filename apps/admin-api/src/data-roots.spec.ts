import { describe, expect, it } from 'vitest';
import { checkDataPath, parseDataRoots } from './data-roots';
import type { AdminError } from './errors';

const roots = parseDataRoots('data, out,,', '/repo');

const refusal = (field: string[], value: string) => {
  try {
    checkDataPath(roots, field, value, '/repo');
    return null;
  } catch (error) {
    return error as AdminError;
  }
};

describe('data roots', () => {
  it('resolves each comma-separated root against the base, skipping empty entries', () => {
    expect(roots).toEqual(['/repo/data', '/repo/out']);
    expect(parseDataRoots('/srv/ck', '/repo')).toEqual(['/srv/ck']);
  });

  it.each(['data/tasks.jsonl', 'out/runs/r/final', 'out', '/repo/data/x', './out/a/../b'])('allows %s', (value) => {
    expect(refusal(['model', 'checkpoint'], value)).toBeNull();
  });

  it.each(['/etc', '/repo/src', 'out/../../etc', '../data', 'database/x', 'outside', '~/x', ''])(
    'refuses %s with a VALIDATION_ERROR naming the field',
    (value) => {
      const error = refusal(['data', 'trainFile'], value);
      expect(error?.code).toBe('VALIDATION_ERROR');
      expect(error?.message).toMatch(/^invalid body: body\.data\.trainFile: .* is outside the data roots/);
      expect(error?.details).toEqual([
        {
          path: ['body', 'data', 'trainFile'],
          message: expect.stringContaining('DATA_ROOTS'),
          code: 'outside_data_roots',
        },
      ]);
    },
  );

  it('always allows the shipped model as a checkpoint, and only as a checkpoint', () => {
    expect(refusal(['model', 'checkpoint'], 'default')).toBeNull();
    expect(refusal(['checkpoint'], 'default')).toBeNull();
    expect(refusal(['data', 'trainFile'], 'default')?.code).toBe('VALIDATION_ERROR');
  });
});
