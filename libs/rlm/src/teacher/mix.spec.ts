import { describe, expect, it } from 'vitest';
import { TeacherError } from './errors';
import { DEFAULT_TEACHER_MIX, drawStrategies, parseTeacherMix, strategyProbabilities, validateMix } from './mix';
import { drawStream } from './rng';
import { STRATEGIES_BY_TYPE, TEACHER_STRATEGIES } from './strategies';
import { TASK_TYPES } from '@fathom/contracts';

describe('teacher mix', () => {
  it('gives every type 80% robust by default, or all robust where a type has no naive strategy', () => {
    for (const type of TASK_TYPES) {
      const probs = strategyProbabilities(DEFAULT_TEACHER_MIX, type);
      const sum = (pick: (p: (typeof probs)[number]) => boolean): number =>
        probs.filter(pick).reduce((s, p) => s + p.probability, 0);
      expect(sum(() => true)).toBeCloseTo(1, 10);
      const naive = STRATEGIES_BY_TYPE[type].some((s) => !s.robust);
      expect(sum((p) => p.strategy.robust)).toBeCloseTo(naive ? 0.8 : 1, 10);
    }
  });

  it('every type has a robust strategy, and names are unique and typed', () => {
    for (const type of TASK_TYPES) {
      expect(STRATEGIES_BY_TYPE[type].some((s) => s.robust)).toBe(true);
      for (const s of STRATEGIES_BY_TYPE[type]) expect(s.name.startsWith(`${type}.`)).toBe(true);
    }
    expect(new Set(TEACHER_STRATEGIES.map((s) => s.name)).size).toBe(TEACHER_STRATEGIES.length);
  });

  it('parses robust share and weights, and rejects bad entries with a clear error', () => {
    const mix = parseTeacherMix('robust=0.6,niah.first_mention=0');
    expect(mix.robust).toBe(0.6);
    const niah = strategyProbabilities(mix, 'niah');
    expect(niah.find((p) => p.strategy.name === 'niah.first_mention')?.probability).toBe(0);
    expect(niah.find((p) => p.strategy.name === 'niah.read_mentions')?.probability).toBeCloseTo(0.5, 10);
    expect(niah.find((p) => p.strategy.name === 'niah.search_question')?.probability).toBeCloseTo(0.5, 10);
    const counting = strategyProbabilities(mix, 'counting');
    expect(counting.filter((p) => !p.strategy.robust).reduce((s, p) => s + p.probability, 0)).toBeCloseTo(0.4, 10);
    expect(() => parseTeacherMix('robust=1.5')).toThrow(TeacherError);
    expect(() => parseTeacherMix('niah.nope=1')).toThrow(/unknown strategy "niah.nope"/);
    expect(() => parseTeacherMix('robust')).toThrow(/not name=number/);
    expect(() => parseTeacherMix('counting.whole_word=-1')).toThrow(/>= 0/);
  });

  it('gives an emptied group share to the other group, and refuses a type with no strategy left', () => {
    const weights = Object.fromEntries(STRATEGIES_BY_TYPE.counting.filter((s) => !s.robust).map((s) => [s.name, 0]));
    const probs = strategyProbabilities({ robust: 0.3, weights }, 'counting');
    expect(probs.filter((p) => p.strategy.robust).reduce((s, p) => s + p.probability, 0)).toBeCloseTo(1, 10);
    const none = Object.fromEntries(STRATEGIES_BY_TYPE.counting.map((s) => [s.name, 0]));
    expect(() => validateMix({ robust: 0.5, weights: none })).toThrow(/every strategy of counting has weight 0/);
  });

  it('draws distinct strategies with the mix frequencies, deterministically per (seed, task id)', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 4000; i++) {
      const [s] = drawStrategies(DEFAULT_TEACHER_MIX, 'niah', 1, drawStream(1, `t${i}`));
      counts.set(s.name, (counts.get(s.name) ?? 0) + 1);
    }
    for (const p of strategyProbabilities(DEFAULT_TEACHER_MIX, 'niah'))
      expect(Math.abs((counts.get(p.strategy.name) ?? 0) / 4000 - p.probability)).toBeLessThan(0.03);
    const both = drawStrategies(DEFAULT_TEACHER_MIX, 'multi_needle', 5, drawStream(2, 'x'));
    expect(new Set(both.map((s) => s.name)).size).toBe(STRATEGIES_BY_TYPE.multi_needle.length);
    expect(drawStrategies(DEFAULT_TEACHER_MIX, 'niah', 2, drawStream(3, 'a'))).toEqual(
      drawStrategies(DEFAULT_TEACHER_MIX, 'niah', 2, drawStream(3, 'a')),
    );
  });
});
