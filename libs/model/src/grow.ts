import type { Checkpoint } from './checkpoint';
import { ModelError } from './errors';
import { linearPrefix, paramSpecs, type LinearModule, type ParamMap } from './params';

/** The projections that write a block's output into the residual stream: zeroed in an inserted block. */
const RESIDUAL_WRITERS: readonly LinearModule[] = ['o_proj', 'down_proj'];

/**
 * Where the inserted blocks go: the k-th of `added` (k = 0 … added−1) follows original layer ⌈(k+1)·L/added⌉ − 1, so
 * they spread evenly over the depth (every layer gets a twin when `added` = L). Returns, for each layer of the grown
 * model, the original layer it copies and whether it is an inserted one.
 */
export function growthPlan(layers: number, added: number): { source: number; inserted: boolean }[] {
  const after = new Map<number, number>();
  for (let k = 0; k < added; k++) {
    const l = Math.ceil(((k + 1) * layers) / added) - 1;
    after.set(l, (after.get(l) ?? 0) + 1);
  }
  const plan: { source: number; inserted: boolean }[] = [];
  for (let l = 0; l < layers; l++) {
    plan.push({ source: l, inserted: false });
    for (let n = after.get(l) ?? 0; n > 0; n--) plan.push({ source: l, inserted: true });
  }
  return plan;
}

/**
 * Deepens a model without changing what it computes (block expansion, as in LLaMA Pro): `layers` − L new decoder
 * blocks are inserted, each a copy of the block before it with its attention output and MLP down projections zeroed,
 * so it adds nothing to the residual stream and the grown model's logits are the original's. Training then moves
 * the zeroed projections first (their gradient is the block input times the upstream gradient) and the copied ones
 * after. Tokenizer and generation config are carried over; the embeddings, final norm and head are shared as is.
 */
export function growDepth(checkpoint: Checkpoint, layers: number): Checkpoint {
  const from = checkpoint.config.numLayers;
  if (!Number.isInteger(layers) || layers <= from) {
    throw new ModelError(
      'INVALID_ARGUMENT',
      `a grown model needs more layers than the checkpoint's ${from}, got ${layers}`,
    );
  }
  const config = { ...checkpoint.config, numLayers: layers };
  const plan = growthPlan(from, layers - from);
  const zeroed = new Set(
    plan.flatMap(({ inserted }, l) => (inserted ? RESIDUAL_WRITERS.map((m) => `${linearPrefix(l, m)}.weight`) : [])),
  );
  const params: ParamMap = new Map();
  for (const spec of paramSpecs(config)) {
    const match = /^model\.layers\.(\d+)\.(.+)$/.exec(spec.name);
    if (!match) {
      params.set(spec.name, checkpoint.params.get(spec.name)!.slice());
      continue;
    }
    const copied = checkpoint.params.get(`model.layers.${plan[Number(match[1])].source}.${match[2]}`)!;
    params.set(spec.name, zeroed.has(spec.name) ? new Float32Array(copied.length) : copied.slice());
  }
  return { ...checkpoint, config, params };
}
