import type { ParamMap, ParamSpec } from '@fathom/model';
import { AdamW, warmupCosine } from '@fathom/tensor';
import type { OptimizerSettings } from '@fathom/contracts';

/**
 * AdamW over every trainable tensor of `specs` (full fine-tuning), updating the arrays of `params` in place — the
 * same arrays the graphs read, so no copy is made between steps. Linear warmup then cosine decay to `minLr` (absent:
 * `lr`) at `totalSteps`; the gradient norm is clipped to `maxGradNorm`. Matrices and embeddings decay; 1-D tensors (norm
 * weights, biases) do not, as is usual for transformers.
 */
export function createAdamW(
  params: ParamMap,
  specs: readonly ParamSpec[],
  o: OptimizerSettings,
  totalSteps: number,
): AdamW {
  const matrices = new Set(specs.filter((s) => s.shape.length >= 2).map((s) => s.name));
  return new AdamW(Object.fromEntries(specs.map((s) => [s.name, params.get(s.name)!])), {
    lr: warmupCosine({ peakLr: o.lr, warmupSteps: o.warmupSteps, totalSteps, minLr: o.minLr ?? o.lr }),
    beta1: o.beta1,
    beta2: o.beta2,
    weightDecay: o.weightDecay,
    maxGradNorm: o.maxGradNorm,
    decays: (name) => matrices.has(name),
  });
}
