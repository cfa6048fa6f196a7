import type { GrpoConfig } from './config';

/** One completion's tokens as the GRPO loss sees them; every array has one entry per token. */
export interface PolicySample {
  /** Group-relative advantage of the whole completion (one per root episode). */
  advantage: number;
  /** Log-probs of the sampled tokens under the policy being trained. */
  logpNew: ArrayLike<number>;
  /** Behaviour log-probs: what the sampler computed when it drew the tokens. */
  logpOld: ArrayLike<number>;
  /** Log-probs under the frozen reference policy; required when beta > 0. */
  logpRef?: ArrayLike<number>;
  /** 1 for model tokens that are trained on, 0 for prompt and observation tokens. */
  mask: ArrayLike<number>;
}

export interface GrpoLossResult {
  /** The aggregated objective: policy loss + beta · KL. */
  loss: number;
  policyLoss: number;
  /** Mean k3 KL estimate over model tokens (0 when beta is 0 and no reference is given). */
  kl: number;
  /** Fractions of model tokens whose ratio was clipped (so they pass no gradient), low and high side. */
  clipRatioLow: number;
  clipRatioHigh: number;
  clipRatio: number;
  /** Model tokens in the batch. */
  tokens: number;
  /** Mean and max |logpNew - logpOld| over model tokens: the behaviour/learner mismatch. */
  logprobDiffMean: number;
  logprobDiffMax: number;
  /**
   * dLoss/dlogpNew for every token of every sample. The loss depends on the parameters only through
   * logpNew, so a model graph that minimises sum_t weights[t] · logp[t] gets exactly the GRPO gradient.
   */
  weights: Float64Array[];
}

function checkSample(sample: PolicySample, index: number, needRef: boolean): void {
  const n = sample.mask.length;
  const lengths: [string, number | undefined][] = [
    ['logpNew', sample.logpNew.length],
    ['logpOld', sample.logpOld.length],
  ];
  if (needRef) lengths.push(['logpRef', sample.logpRef?.length]);
  for (const [name, length] of lengths) {
    if (length !== n) {
      throw new Error(`GRPO sample ${index}: ${name} has ${length ?? 'no'} entries but the mask has ${n}`);
    }
  }
  if (!Number.isFinite(sample.advantage)) throw new Error(`GRPO sample ${index}: advantage is ${sample.advantage}`);
}

/**
 * The clipped GRPO surrogate with a k3 KL penalty, per token:
 *   l_t = -min(rho_t · A, clip(rho_t, 1 - epsLow, 1 + epsHigh) · A) + beta · (e^(ref - new) - (ref - new) - 1)
 * with rho_t = e^(new - old), aggregated over model tokens as `config.lossAggregation` says.
 */
export function grpoLoss(samples: readonly PolicySample[], config: GrpoConfig): GrpoLossResult {
  if (samples.length === 0) throw new Error('GRPO loss needs at least one sample');
  const useKl = config.beta > 0;
  samples.forEach((sample, i) => checkSample(sample, i, useKl));

  const tokenCounts = samples.map((s) => Array.from(s.mask).reduce((a, m) => a + (m ? 1 : 0), 0));
  const totalTokens = tokenCounts.reduce((a, b) => a + b, 0);
  const aggregationWeight = (sampleIndex: number): number => {
    switch (config.lossAggregation) {
      case 'token':
        return totalTokens === 0 ? 0 : 1 / totalTokens;
      case 'sequence':
        return 1 / (samples.length * Math.max(1, tokenCounts[sampleIndex]));
      case 'dr_grpo':
        return 1 / (samples.length * config.maxCompletionTokens);
    }
  };

  let policyLoss = 0;
  let klLoss = 0;
  let klSum = 0;
  let clippedLow = 0;
  let clippedHigh = 0;
  let diffSum = 0;
  let diffMax = 0;
  const weights = samples.map((sample, s) => {
    const a = sample.advantage;
    const w = aggregationWeight(s);
    const grads = new Float64Array(sample.mask.length);
    for (let t = 0; t < sample.mask.length; t++) {
      if (!sample.mask[t]) continue;
      const logRatio = sample.logpNew[t] - sample.logpOld[t];
      const ratio = Math.exp(logRatio);
      const clipped = Math.min(Math.max(ratio, 1 - config.epsilonLow), 1 + config.epsilonHigh);
      const isLow = ratio < 1 - config.epsilonLow && a < 0;
      const isHigh = ratio > 1 + config.epsilonHigh && a > 0;
      if (isLow) clippedLow++;
      if (isHigh) clippedHigh++;
      policyLoss += w * -Math.min(ratio * a, clipped * a);
      let grad = isLow || isHigh ? 0 : -ratio * a;
      if (useKl) {
        const refMinusNew = sample.logpRef![t] - sample.logpNew[t];
        const k3 = Math.exp(refMinusNew) - refMinusNew - 1;
        klSum += k3;
        klLoss += w * config.beta * k3;
        grad += config.beta * (1 - Math.exp(refMinusNew));
      }
      grads[t] = w * grad;
      const diff = Math.abs(logRatio);
      diffSum += diff;
      diffMax = Math.max(diffMax, diff);
    }
    return grads;
  });

  const perToken = (x: number) => (totalTokens === 0 ? 0 : x / totalTokens);
  return {
    loss: policyLoss + klLoss,
    policyLoss,
    kl: perToken(klSum),
    clipRatioLow: perToken(clippedLow),
    clipRatioHigh: perToken(clippedHigh),
    clipRatio: perToken(clippedLow + clippedHigh),
    tokens: totalTokens,
    logprobDiffMean: perToken(diffSum),
    logprobDiffMax: diffMax,
    weights,
  };
}
