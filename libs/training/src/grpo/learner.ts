import type { SpanRead, TokenSequence } from '@fathom/contracts';
import { grpoLoss, type GrpoConfig, type PolicySample, type TrainableGroup } from '@fathom/grpo';
import { spanTrainBatch, type ModelGraphs, type ParamMap } from '@fathom/model';
import { trainingSequences, trainingSpanReads } from '@fathom/rlm';
import type { AdamW } from '@fathom/tensor';
import { packBatch, type PackedBatch } from '../tokens';
import { TrainingError } from '../errors';

/** What the update needs: the graphs, the live parameters (updated in place), the frozen reference and AdamW. */
export interface Learner {
  graphs: ModelGraphs;
  params: ParamMap;
  /** The initial checkpoint's parameters, never updated; null when beta is 0 (no KL term). */
  reference: ParamMap | null;
  optimizer: AdamW;
  padId: number;
}

export interface LearnerOptions {
  grpo: GrpoConfig;
  microBatchSize: number;
  padMultiple: number;
  entropy: boolean;
}

/** Mean and max |behaviour − learner| log-prob over the model tokens of one turn index. */
export interface LogprobDiff {
  mean: number;
  max: number;
  tokens: number;
}

/** What one update did; every number is deterministic given the weights, optimizer state and trajectories. */
export interface UpdateMetrics {
  loss: number;
  policy_loss: number;
  kl: number;
  clip_ratio: number;
  clip_ratio_low: number;
  clip_ratio_high: number;
  /** Mean token entropy of the learner on trained tokens (nats); absent when `entropy` is off. */
  entropy?: number;
  grad_norm: number;
  learning_rate: number;
  logprob_diff_mean: number;
  logprob_diff_max: number;
  /** Per turn index of the root episode ("1", "2", …; "subcall" for trained sub-call sequences). */
  logprob_diff_per_turn: Record<string, LogprobDiff>;
  trained_sequences: number;
  trained_tokens: number;
  /**
   * Leaf reads of the trained policy's span head in the update (a reader trained by GRPO): each one's log p(span) is
   * weighted by −advantage / reads (REINFORCE on the group advantage; reads are taken on-policy).
   */
  trained_reads: number;
  /** Tokens of the packed sequences the update ran on, and the same with each micro-batch's padding. */
  learner_tokens: number;
  learner_padded_tokens: number;
}

/** Where an update's wall-clock time went (ms): filled by `applyUpdate` when the caller passes one. */
export interface UpdateTimings {
  /** Forward-only passes: the learner's log-probs for stale groups, the reference's when β > 0. */
  logprobsMs: number;
  /** The train steps: forward and backward of every micro-batch, gradients accumulated. */
  trainMs: number;
  /** Clipping and AdamW. */
  optimizerMs: number;
}

/** The token part of an update that has only span reads to train. */
const NO_TOKEN_LOSS = {
  loss: 0,
  policyLoss: 0,
  kl: 0,
  clipRatio: 0,
  clipRatioLow: 0,
  clipRatioHigh: 0,
  tokens: 0,
};

interface Row {
  seq: TokenSequence;
  advantage: number;
  /** A trained sub-call sequence (its tokens have no turn index of the root episode). */
  subcall: boolean;
}

/** The rows of the update: each trajectory's checked training sequences with its root episode's advantage. */
function rowsOf(trainable: readonly TrainableGroup[]): Row[] {
  const rows: Row[] = [];
  for (const { group, advantages } of trainable)
    group.trajectories.forEach((traj, i) =>
      trainingSequences(traj).forEach((seq, k) =>
        rows.push({ seq, advantage: advantages[i], subcall: k > 0 || traj.trainRoot === false }),
      ),
    );
  return rows;
}

interface SpanRow {
  read: Required<SpanRead>;
  advantage: number;
}

/** The trained span reads of the update, each with its root episode's advantage. */
function spanRowsOf(trainable: readonly TrainableGroup[]): SpanRow[] {
  return trainable.flatMap(({ group, advantages }) =>
    group.trajectories.flatMap((traj, i) =>
      trainingSpanReads(traj).map((read) => ({ read, advantage: advantages[i] })),
    ),
  );
}

/** How many reads one span train step takes: reads are a few hundred positions each. */
const SPAN_ROWS_PER_BATCH = 32;

/**
 * Gradients of Σ −(advantage / reads) · log p(span) over the span reads, accumulated into `grads`; returns that
 * objective. Each read is scored again under the candidates it was chosen among (its `input`).
 */
async function spanGradients(
  learner: Learner,
  rows: readonly SpanRow[],
  grads: Map<string, Float32Array>,
): Promise<number> {
  let objective = 0;
  for (let i = 0; i < rows.length; i += SPAN_ROWS_PER_BATCH) {
    const chunk = rows.slice(i, i + SPAN_ROWS_PER_BATCH);
    const batch = spanTrainBatch(
      chunk.map(({ read }) => ({ ...read.input, start: read.start, end: read.end })),
      { padId: learner.padId, maxSpanTokens: learner.graphs.config.reader!.maxSpanTokens },
    );
    const out = await learner.graphs.spanTrainStep(
      learner.params,
      batch,
      Float32Array.from(chunk.map((r) => -r.advantage / rows.length)),
    );
    objective += out.loss;
    for (const [name, g] of out.grads) {
      const acc = grads.get(name);
      if (acc === undefined) grads.set(name, Float32Array.from(g));
      else for (let k = 0; k < g.length; k++) acc[k] += g[k];
    }
  }
  return objective;
}

/** Turn index (1-based) of each model token of a root sequence: the k-th run of mask = 1 is turn k. */
function turnIndexes(mask: readonly number[]): number[] {
  const out = new Array<number>(mask.length).fill(0);
  let turn = 0;
  for (let i = 0; i < mask.length; i++) {
    if (mask[i] === 1 && (i === 0 || mask[i - 1] !== 1)) turn++;
    if (mask[i] === 1) out[i] = turn;
  }
  return out;
}

/**
 * One GRPO update from scored groups: learner (and reference) log-probs of the stored ids — never re-encoded
 * text — in micro-batches, the GRPO loss over the whole step (so token-level aggregation spans every group), then
 * the graph's gradient of Σ w·logp with w = dLoss/dlogp, accumulated over micro-batches, clipped and applied by
 * AdamW in place. Position t of a packed row predicts ids[t + 1], so its behaviour log-prob and mask are the
 * sequence's entries at t + 1. Returns null (and changes nothing) when no group is trainable.
 */
export async function applyUpdate(
  learner: Learner,
  trainable: readonly TrainableGroup[],
  options: LearnerOptions,
  step: number,
  timings: UpdateTimings = { logprobsMs: 0, trainMs: 0, optimizerMs: 0 },
): Promise<UpdateMetrics | null> {
  // Longest first, so each micro-batch holds sequences of similar length and pads little; the loss is aggregated
  // over the whole step before any gradient, so the order changes nothing but the padding.
  const rows = rowsOf(trainable).sort((a, b) => b.seq.ids.length - a.seq.ids.length);
  const spanRows = spanRowsOf(trainable);
  if (rows.length === 0 && spanRows.length === 0) return null;
  const { graphs, params } = learner;
  const pack = {
    padId: learner.padId,
    padMultiple: options.padMultiple,
    maxLength: graphs.config.maxPositions,
    vocabSize: graphs.config.vocabSize,
  };
  const batches: { rows: Row[]; packed: PackedBatch }[] = [];
  for (let i = 0; i < rows.length; i += options.microBatchSize) {
    const chunk = rows.slice(i, i + options.microBatchSize);
    batches.push({
      rows: chunk,
      packed: packBatch(
        chunk.map((r) => r.seq),
        pack,
      ),
    });
  }

  // On-policy — every group sampled with these very weights, at the temperature 1 without truncation that the run
  // config enforces, extractive reads under the span constraint the packed logit bias replays — the learner's
  // log-probs equal the behaviour log-probs up to float rounding, so the loss
  // weights are computed from the behaviour log-probs and the train step's forward is the only one. Stale groups
  // need the learner's own log-probs for the importance ratio: one forward more per micro-batch.
  const onPolicy = trainable.every((t) => t.staleness === 0);
  const samples: PolicySample[] = [];
  const turnOf: number[][] = [];
  for (const { rows: chunk, packed } of batches) {
    const T = packed.batch.length;
    const started = performance.now();
    const logpNew = onPolicy ? null : await graphs.logprobs(params, packed.batch); // (B, T)
    const logpRef = learner.reference ? await graphs.logprobs(learner.reference, packed.batch) : null; // (B, T)
    timings.logprobsMs += performance.now() - started;
    chunk.forEach((row, b) => {
      const n = packed.rowLengths[b];
      const at = (a: Float32Array) => a.subarray(b * T, b * T + n);
      const logpOld = row.seq.logprobs.slice(1);
      samples.push({
        advantage: row.advantage,
        logpNew: logpNew ? at(logpNew) : logpOld,
        logpOld,
        mask: row.seq.mask.slice(1),
        ...(logpRef ? { logpRef: at(logpRef) } : {}),
      });
      turnOf.push(row.subcall ? [] : turnIndexes(row.seq.mask).slice(1));
    });
  }

  const result =
    samples.length === 0 ? { ...NO_TOKEN_LOSS, weights: [] as Float32Array[] } : grpoLoss(samples, options.grpo);
  if (!Number.isFinite(result.loss))
    throw new TrainingError('DIVERGED', `step ${step}: GRPO loss ${result.loss}`, { trainer: 'GRPO', step });

  // The train step's forward gives, besides the gradients, the learner's log-probs and entropy at every position:
  // the sampler/learner agreement and the entropy metrics come from it, so they are measured on either path.
  const grads = new Map<string, Float32Array>();
  const learnerLogp: Float32Array[] = [];
  const entropy = { sum: 0, n: 0 };
  let sampleIndex = 0;
  for (const { packed } of batches) {
    const T = packed.batch.length;
    const tokenWeights = new Float32Array(packed.batch.batch * T); // (B, T)
    const first = sampleIndex;
    for (let b = 0; b < packed.batch.batch; b++) tokenWeights.set(result.weights[sampleIndex++], b * T);
    const started = performance.now();
    const out = await graphs.trainStep(params, packed.batch, tokenWeights);
    timings.trainMs += performance.now() - started;
    for (const [name, g] of out.grads) {
      const acc = grads.get(name);
      if (acc === undefined) grads.set(name, Float32Array.from(g));
      else for (let i = 0; i < g.length; i++) acc[i] += g[i];
    }
    for (let b = 0; b < packed.batch.batch; b++) {
      const n = packed.rowLengths[b];
      learnerLogp.push(out.logprobs.slice(b * T, b * T + n));
      const mask = samples[first + b].mask;
      for (let t = 0; t < n; t++) {
        if (!mask[t]) continue;
        entropy.sum += out.entropy[b * T + t];
        entropy.n++;
      }
    }
  }
  const spanStarted = performance.now();
  const spanObjective = spanRows.length === 0 ? 0 : await spanGradients(learner, spanRows, grads);
  timings.trainMs += performance.now() - spanStarted;
  const optimizerStarted = performance.now();
  const info = learner.optimizer.update(Object.fromEntries(grads));
  timings.optimizerMs += performance.now() - optimizerStarted;
  if (!Number.isFinite(info.gradNorm))
    throw new TrainingError('DIVERGED', `step ${step}: gradient norm ${info.gradNorm}`, { trainer: 'GRPO', step });

  const perTurn = new Map<string, { sum: number; max: number; tokens: number }>();
  const overall = { sum: 0, max: 0, tokens: 0 };
  samples.forEach((s, i) => {
    for (let t = 0; t < s.mask.length; t++) {
      if (!s.mask[t]) continue;
      const key = turnOf[i].length === 0 ? 'subcall' : String(turnOf[i][t]);
      const d = Math.abs(learnerLogp[i][t] - s.logpOld[t]);
      for (const acc of [perTurn.get(key) ?? { sum: 0, max: 0, tokens: 0 }, overall]) {
        acc.sum += d;
        acc.max = Math.max(acc.max, d);
        acc.tokens++;
        if (acc !== overall) perTurn.set(key, acc);
      }
    }
  });
  return {
    loss: result.loss + spanObjective,
    policy_loss: result.policyLoss + spanObjective,
    kl: result.kl,
    clip_ratio: result.clipRatio,
    clip_ratio_low: result.clipRatioLow,
    clip_ratio_high: result.clipRatioHigh,
    ...(options.entropy ? { entropy: entropy.n === 0 ? 0 : entropy.sum / entropy.n } : {}),
    grad_norm: info.gradNorm,
    learning_rate: info.lr,
    logprob_diff_mean: overall.tokens === 0 ? 0 : overall.sum / overall.tokens,
    logprob_diff_max: overall.max,
    logprob_diff_per_turn: Object.fromEntries(
      [...perTurn].map(([k, v]) => [k, { mean: v.sum / v.tokens, max: v.max, tokens: v.tokens }]),
    ),
    trained_sequences: samples.length,
    trained_tokens: result.tokens,
    trained_reads: spanRows.length,
    learner_tokens: batches.reduce((n, { packed }) => n + packed.rowLengths.reduce((a, b) => a + b, 0), 0),
    learner_padded_tokens: batches.reduce((n, { packed }) => n + packed.batch.batch * packed.batch.length, 0),
  };
}
