import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { applySetOverrides, ConfigOverrideError } from './config-overrides';
import { RunConfigSchema } from './run-config';

const schema = z.strictObject({
  steps: z.number().int().positive().default(20),
  lr: z.number().positive().optional(),
  name: z.string().default('run'),
  flag: z.boolean().default(false),
  mode: z.enum(['greedy', 'sampled']).default('greedy'),
  tags: z.array(z.string()).default([]),
  inner: z
    .strictObject({
      deep: z.strictObject({ n: z.number().default(1) }).prefault({}),
      style: z.strictObject({ system: z.enum(['full', 'compact']), previewChars: z.number().int() }).optional(),
    })
    .prefault({})
    .refine(() => true),
  data: z.discriminatedUnion('format', [
    z.strictObject({ format: z.literal('a'), examples: z.string() }),
    z.strictObject({ format: z.literal('b'), texts: z.string(), size: z.number().int() }),
  ]),
  piped: z.number().pipe(z.transform((n) => n * 2)),
});

const errorOf = (fn: () => unknown): ConfigOverrideError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigOverrideError) return error;
    throw error;
  }
  throw new Error('no error thrown');
};

describe('applySetOverrides', () => {
  it('reads each leaf as its type', () => {
    const out = applySetOverrides(schema, {}, [
      'steps=8',
      'lr=3e-4',
      'name=a=b',
      'flag=true',
      'mode=sampled',
      'tags=["x","y"]',
      'piped=2',
    ]);
    expect(out).toEqual({ steps: 8, lr: 3e-4, name: 'a=b', flag: true, mode: 'sampled', tags: ['x', 'y'], piped: 2 });
  });

  it('sets nested keys, keeping the sections siblings and the input unchanged', () => {
    const raw = { steps: 3, inner: { deep: { n: 5 } } };
    const out = applySetOverrides(schema, raw, ['inner.style.system=compact', 'inner.style.previewChars=12']);
    expect(out).toEqual({ steps: 3, inner: { deep: { n: 5 }, style: { system: 'compact', previewChars: 12 } } });
    expect(raw).toEqual({ steps: 3, inner: { deep: { n: 5 } } });
  });

  it('takes a whole section as JSON', () => {
    const out = applySetOverrides(schema, {}, ['inner.style={"system":"full","previewChars":160}']);
    expect(out).toEqual({ inner: { style: { system: 'full', previewChars: 160 } } });
  });

  it('steps into the options of a union', () => {
    const out = applySetOverrides(schema, { data: { format: 'b', texts: 't', size: 1 } }, ['data.size=4']);
    expect(out).toEqual({ data: { format: 'b', texts: 't', size: 4 } });
    expect(errorOf(() => applySetOverrides(schema, {}, ['data.size=1.5'])).message).toBe(
      'data.size: expected an integer, got "1.5"',
    );
  });

  it('lets a later override of the same key win', () => {
    expect(applySetOverrides(schema, { steps: 1 }, ['steps=2', 'steps=3'])).toEqual({ steps: 3 });
  });

  it('refuses an unknown key, naming the path and the valid keys', () => {
    const top = errorOf(() => applySetOverrides(schema, {}, ['step=8']));
    expect(top.code).toBe('UNKNOWN_KEY');
    expect(top.message).toBe(
      'step: unknown key "step"; valid keys: data, flag, inner, lr, mode, name, piped, steps, tags',
    );
    expect(errorOf(() => applySetOverrides(schema, {}, ['inner.deep.m=1'])).message).toBe(
      'inner.deep.m: unknown key "m" in inner.deep; valid keys: n',
    );
    expect(errorOf(() => applySetOverrides(schema, {}, ['data.nope=1'])).message).toBe(
      'data.nope: unknown key "nope" in data; valid keys: examples, format, size, texts',
    );
  });

  it('refuses a path through a value', () => {
    const error = errorOf(() => applySetOverrides(schema, {}, ['steps.max=1']));
    expect(error.code).toBe('UNKNOWN_KEY');
    expect(error.message).toBe('steps.max: steps is a value, not a section; set it as steps=<value>');
  });

  it.each([
    ['steps=eight', 'steps: expected an integer, got "eight"'],
    ['steps=2.5', 'steps: expected an integer, got "2.5"'],
    ['steps=', 'steps: expected an integer, got ""'],
    ['lr=fast', 'lr: expected a number, got "fast"'],
    ['flag=yes', 'flag: expected true or false, got "yes"'],
    ['mode=beam', 'mode: expected one of greedy, sampled, got "beam"'],
    ['tags=[x', 'tags: expected JSON, got "[x"'],
  ])('refuses %s as the wrong type', (override, message) => {
    const error = errorOf(() => applySetOverrides(schema, {}, [override]));
    expect(error.code).toBe('INVALID_VALUE');
    expect(error.message).toBe(message);
  });

  it.each(['steps', '=3', 'inner..n=1', '.steps=1'])('refuses the malformed override %s', (override) => {
    expect(errorOf(() => applySetOverrides(schema, {}, [override])).code).toBe('MALFORMED');
  });

  describe('on the run config', () => {
    it('keeps every default the overrides do not touch', () => {
      const raw = applySetOverrides(RunConfigSchema, { name: 'r' }, ['rollout.maxTurns=8', 'optimizer.lr=3e-4']);
      const config = RunConfigSchema.parse(raw);
      const defaults = RunConfigSchema.parse({ name: 'r' });
      expect(config).toEqual({
        ...defaults,
        rollout: { ...defaults.rollout, maxTurns: 8 },
        optimizer: { ...defaults.optimizer, lr: 3e-4 },
      });
    });

    it('leaves ranges to the schema', () => {
      const raw = applySetOverrides(RunConfigSchema, { name: 'r' }, ['rollout.maxTurns=0']);
      expect(RunConfigSchema.safeParse(raw).success).toBe(false);
    });

    it('names the valid keys of a section', () => {
      expect(errorOf(() => applySetOverrides(RunConfigSchema, {}, ['optimizer.learningRate=1e-4'])).message).toBe(
        'optimizer.learningRate: unknown key "learningRate" in optimizer; valid keys: beta1, beta2, lr, ' +
          'maxGradNorm, minLr, warmupSteps, weightDecay',
      );
    });
  });
});
