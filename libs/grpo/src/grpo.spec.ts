import { describe, expect, it } from 'vitest';
import { grpoConfig, groupAdvantages, grpoLoss, selectGroups, type PolicySample } from './index';

const noKl = grpoConfig({ beta: 0 });

/** A one-token sample whose ratio new/old is `ratio`. */
function oneToken(advantage: number, ratio: number, mask = 1): PolicySample {
  return { advantage, logpNew: [Math.log(ratio) - 1], logpOld: [-1], mask: [mask] };
}

describe('groupAdvantages', () => {
  it('normalises by the sample std (hand-computed)', () => {
    // mean 0.25; sample variance (0.5625 + 3 · 0.0625) / 3 = 0.25; std 0.5
    const { advantages, mean, std, zeroStd } = groupAdvantages([1, 0, 0, 0], 'group', 1e-4);
    expect(mean).toBeCloseTo(0.25, 12);
    expect(std).toBeCloseTo(0.5, 12);
    expect(zeroStd).toBe(false);
    expect(advantages[0]).toBeCloseTo(0.75 / 0.5001, 12);
    expect(advantages[1]).toBeCloseTo(-0.25 / 0.5001, 12);
  });

  it('is mean-only with scale "none" (Dr. GRPO)', () => {
    expect(groupAdvantages([1, 0, 0, 0], 'none', 1e-4).advantages).toEqual([0.75, -0.25, -0.25, -0.25]);
  });

  it("with negative advantages dropped, keeps the better completions' advantages and zeroes the rest", () => {
    const { advantages, mean } = groupAdvantages([1, 0, 0.5, 0], 'none', 1e-4, 'drop');
    expect(mean).toBe(0.375);
    expect(advantages).toEqual([0.625, 0, 0.125, 0]);
    const selected = selectGroups(
      [{ groupId: 'g', policyVersion: 0, rewards: [1, 0, 0, 0] }],
      0,
      grpoConfig({ negativeAdvantages: 'drop' }),
    );
    expect(selected.trainable[0].stats.advantages.slice(1)).toEqual([0, 0, 0]);
    expect(selected.trainable[0].stats.advantages[0]).toBeGreaterThan(1);
  });

  it('flags a zero-std group and gives it zero advantages', () => {
    const result = groupAdvantages([0.4, 0.4, 0.4], 'group', 1e-4);
    expect(result.zeroStd).toBe(true);
    expect(result.advantages).toEqual([0, 0, 0]);
  });

  it('rejects non-finite rewards and groups of one', () => {
    expect(() => groupAdvantages([1, Number.NaN], 'group', 1e-4)).toThrow(/reward 1 .*not a finite number/);
    expect(() => groupAdvantages([1], 'group', 1e-4)).toThrow(/at least 2/);
  });
});

describe('grpoLoss clipping (hand-computed, one token each)', () => {
  it.each([
    // advantage, ratio, loss, dLoss/dlogp, clipped low, clipped high
    [1, 1, -1, -1, 0, 0],
    [1, 1.5, -1.2, 0, 0, 1], // A > 0, ratio above 1 + eps: clipped, no gradient
    [1, 0.5, -0.5, -0.5, 0, 0], // A > 0, ratio below 1 - eps: min picks the unclipped term
    [-1, 0.5, 0.8, 0, 1, 0], // A < 0, ratio below 1 - eps: clipped, no gradient
    [-1, 1.5, 1.5, 1.5, 0, 0], // A < 0, ratio above 1 + eps: min picks the unclipped term
  ])('A=%d ratio=%d → loss %d, grad %d', (advantage, ratio, loss, grad, low, high) => {
    const result = grpoLoss([oneToken(advantage, ratio)], noKl);
    expect(result.loss).toBeCloseTo(loss, 12);
    expect(result.weights[0][0]).toBeCloseTo(grad, 12);
    expect(result.clipRatioLow).toBe(low);
    expect(result.clipRatioHigh).toBe(high);
  });

  it('uses epsilonHigh for the upper bound only (clip-higher)', () => {
    const config = grpoConfig({ beta: 0, epsilonLow: 0.2, epsilonHigh: 0.3 });
    expect(grpoLoss([oneToken(1, 1.25)], config).clipRatioHigh).toBe(0);
    expect(grpoLoss([oneToken(1, 1.35)], config).loss).toBeCloseTo(-1.3, 12);
    expect(grpoLoss([oneToken(-1, 0.75)], config).clipRatioLow).toBe(1);
  });
});

describe('grpoLoss KL term', () => {
  it('adds beta · k3 with k3 = e^(ref-new) - (ref-new) - 1 (hand-computed)', () => {
    const sample: PolicySample = { advantage: 0, logpNew: [-2], logpOld: [-2], logpRef: [-2 + Math.log(2)], mask: [1] };
    const result = grpoLoss([sample], grpoConfig({ beta: 0.1 }));
    const k3 = 2 - Math.log(2) - 1;
    expect(result.kl).toBeCloseTo(k3, 12);
    expect(result.loss).toBeCloseTo(0.1 * k3, 12);
    expect(result.weights[0][0]).toBeCloseTo(0.1 * (1 - 2), 12);
  });

  it('requires reference log-probs when beta > 0', () => {
    expect(() => grpoLoss([oneToken(1, 1)], grpoConfig({ beta: 0.04 }))).toThrow(/sample 0: logpRef has no entries/);
  });
});

describe('grpoLoss masks and aggregation', () => {
  it('ignores observation tokens: their log-probs change nothing and get zero weight', () => {
    const base: PolicySample = { advantage: 1, logpNew: [-1, -3, -1], logpOld: [-1, -1, -1], mask: [1, 0, 1] };
    const changed: PolicySample = { ...base, logpNew: [-1, -9, -1] };
    const a = grpoLoss([base], noKl);
    const b = grpoLoss([changed], noKl);
    expect(a.loss).toBeCloseTo(-1, 12);
    expect(b.loss).toBe(a.loss);
    expect(a.weights[0][1]).toBe(0);
    expect(a.tokens).toBe(2);
  });

  it('rejects a mask whose length disagrees with the log-probs', () => {
    const bad: PolicySample = { advantage: 1, logpNew: [-1, -1], logpOld: [-1, -1], mask: [1] };
    expect(() => grpoLoss([bad], noKl)).toThrow(/sample 0: logpNew has 2 entries but the mask has 1/);
  });

  it('aggregates per token, per sequence, or by a constant (Dr. GRPO)', () => {
    const short: PolicySample = { advantage: 1, logpNew: [-1], logpOld: [-1], mask: [1] };
    const long: PolicySample = { advantage: -1, logpNew: [-1, -1, -1], logpOld: [-1, -1, -1], mask: [1, 1, 1] };
    // per-token losses: short -1; long +1, +1, +1
    expect(grpoLoss([short, long], grpoConfig({ beta: 0, lossAggregation: 'token' })).loss).toBeCloseTo(0.5, 12);
    expect(grpoLoss([short, long], grpoConfig({ beta: 0, lossAggregation: 'sequence' })).loss).toBeCloseTo(0, 12);
    const dr = grpoLoss([short, long], grpoConfig({ beta: 0, lossAggregation: 'dr_grpo', maxCompletionTokens: 10 }));
    expect(dr.loss).toBeCloseTo(2 / 20, 12);
  });

  it('a zero-std group passes no gradient', () => {
    const { advantages } = groupAdvantages([0.3, 0.3], 'group', 1e-4);
    const samples = advantages.map((advantage) => ({
      advantage,
      logpNew: [-1, -2],
      logpOld: [-1.1, -2],
      mask: [1, 1],
    }));
    const result = grpoLoss(samples, noKl);
    expect(result.loss).toBe(0);
    expect(result.weights.every((w) => w.every((x) => x === 0))).toBe(true);
  });

  it('weights are dLoss/dlogpNew (central differences away from the clip edges)', () => {
    const config = grpoConfig({ beta: 0.2, lossAggregation: 'sequence' });
    const samples: PolicySample[] = [
      {
        advantage: 0.7,
        logpNew: [-1.0, -0.5, -2.0],
        logpOld: [-1.05, -0.45, -2.0],
        logpRef: [-1.2, -0.4, -1.9],
        mask: [1, 1, 0],
      },
      { advantage: -1.3, logpNew: [-0.3, -1.5], logpOld: [-0.35, -1.4], logpRef: [-0.2, -1.6], mask: [1, 1] },
    ];
    const { weights } = grpoLoss(samples, config);
    const h = 1e-6;
    samples.forEach((sample, s) => {
      for (let t = 0; t < sample.mask.length; t++) {
        const shifted = (delta: number) =>
          samples.map((x, i) =>
            i === s ? { ...x, logpNew: Array.from(x.logpNew, (v, j) => (j === t ? v + delta : v)) } : x,
          );
        const numeric = (grpoLoss(shifted(h), config).loss - grpoLoss(shifted(-h), config).loss) / (2 * h);
        expect(weights[s][t]).toBeCloseTo(numeric, 7);
      }
    });
  });

  it('reports the behaviour/learner log-prob mismatch', () => {
    const sample: PolicySample = { advantage: 1, logpNew: [-1, -2, -5], logpOld: [-1.1, -2, -1], mask: [1, 1, 0] };
    const result = grpoLoss([sample], noKl);
    expect(result.logprobDiffMax).toBeCloseTo(0.1, 12);
    expect(result.logprobDiffMean).toBeCloseTo(0.05, 12);
  });
});

describe('selectGroups', () => {
  const groups = [
    { groupId: 'a', policyVersion: 5, rewards: [1, 0, 0, 1] },
    { groupId: 'b', policyVersion: 5, rewards: [0, 0, 0, 0] },
    { groupId: 'c', policyVersion: 4, rewards: [1, 0, 1, 1] },
    { groupId: 'd', policyVersion: 2, rewards: [1, 0, 1, 0] },
  ];

  it('skips zero-std and stale groups with reasons, and histograms staleness', () => {
    const selection = selectGroups(groups, 5, grpoConfig({ maxStaleness: 1 }));
    expect(selection.trainable.map((t) => t.group.groupId)).toEqual(['a', 'c']);
    expect(selection.skipped.map((s) => [s.groupId, s.reason])).toEqual([
      ['b', 'zero_std'],
      ['d', 'stale'],
    ]);
    expect(selection.stalenessHistogram).toEqual({ 0: 1, 1: 1 });
    expect(selection.fracRewardZeroStd).toBe(0.25);
  });

  it('keeps zero-std groups when dynamic sampling is off; maxStaleness 0 is synchronous', () => {
    const selection = selectGroups(groups, 5, grpoConfig({ dynamicSampling: false, maxStaleness: 0 }));
    expect(selection.trainable.map((t) => t.group.groupId)).toEqual(['a', 'b']);
  });

  it('throws on a group from a future policy version', () => {
    expect(() => selectGroups(groups, 4, grpoConfig())).toThrow(
      /group a claims policy version 5, newer than the learner's 4/,
    );
  });
});

describe('grpoConfig', () => {
  it('has the documented defaults and rejects unknown keys', () => {
    const config = grpoConfig();
    expect(config).toMatchObject({ groupSize: 8, beta: 0.04, epsilonLow: 0.2, scaleRewards: 'group', maxStaleness: 0 });
    expect(() => grpoConfig({ betta: 1 } as never)).toThrow(/betta/);
  });
});
