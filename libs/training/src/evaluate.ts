import type { ModelGraphs, ParamMap } from '@fathom/model';
import { packBatch, type MaskedSequence, type PackOptions } from './tokens';

export interface EvalLoss {
  /** Mean negative log-likelihood per trained token over all the examples (token-level, like the train loss). */
  loss: number;
  /** Trained tokens scored. */
  tokens: number;
  examples: number;
}

/** Forward-only loss of `examples` in their given order, `batchSize` at a time (the last batch may be smaller). */
export async function evaluateLoss(
  graphs: ModelGraphs,
  params: ParamMap,
  examples: readonly MaskedSequence[],
  batchSize: number,
  pack: PackOptions,
): Promise<EvalLoss> {
  let nll = 0;
  let tokens = 0;
  for (let from = 0; from < examples.length; from += batchSize) {
    const packed = packBatch(examples.slice(from, from + batchSize), pack);
    const logprobs = await graphs.logprobs(params, packed.batch); // (B, T)
    for (let i = 0; i < logprobs.length; i++) if (packed.targetMask[i] === 1) nll -= logprobs[i];
    tokens += packed.trainedTokens;
  }
  return { loss: tokens === 0 ? Number.NaN : nll / tokens, tokens, examples: examples.length };
}
