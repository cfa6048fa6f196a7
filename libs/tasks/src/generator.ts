import { RUN_LIMITS, SPLITS, TASK_TYPES, type Family, type Split, type Task, type TaskType } from '@fathom/contracts';
import { buildDocument } from './document';
import { TasksError } from './errors';
import { deriveSeed, Rng } from '@fathom/contracts';
import { BUILDERS, type Invention, type VariantRates } from './task-types';
import { CHARS_PER_TOKEN, estimateTokens } from './tokens';

/** The original FATHOM dataset sizes. */
export const DEFAULT_SPLIT_SIZES: Readonly<Record<Split, number>> = { train: 1000, eval: 200, heldout: 500 };

/**
 * The default mix: most weight on the types where reading a chunk is the natural solution (tracking, multi_hop) and
 * a sum over several facts (multi_needle); counting, which a careful whole-word search solves, stays small.
 */
export const DEFAULT_MIX: Readonly<Record<TaskType, number>> = {
  niah: 0.15,
  extractive: 0.15,
  multi_needle: 0.15,
  counting: 0.1,
  tracking: 0.25,
  multi_hop: 0.2,
};

export const DEFAULT_MIN_TOKENS = 4096;
export const DEFAULT_MAX_TOKENS = 200_000;
/**
 * Below this a document cannot hold the largest task's needles and distractors with filler around them. Kept in the
 * run-config schema's limits, so that a run config cannot ask for shorter generated documents than this.
 */
export const MIN_CONTEXT_TOKENS = RUN_LIMITS.minContextTokens;

/** Contexts longer than this many tokens count as long (see HELDOUT_LONG_SHARE). */
export const LONG_CONTEXT_TOKENS = 65_536;
/**
 * Share of heldout tasks whose length is drawn above LONG_CONTEXT_TOKENS (when the bounds straddle it): the heldout
 * length distribution is log-uniform within [min, 64K) and within [64K, max], weighted 70/30. (Log-uniform over
 * 4K–200K alone would give about 29% in expectation, but not at every size.)
 */
export const HELDOUT_LONG_SHARE = 0.3;

export type LengthDistribution = 'log-uniform' | 'uniform';

/** Default distractor-variant rates per task type (documented in docs/DATASETS.md). */
export const DEFAULT_VARIANT_RATES: Readonly<Record<TaskType, VariantRates>> = Object.fromEntries(
  TASK_TYPES.map((type) => [type, BUILDERS[type].defaultRates]),
) as Record<TaskType, VariantRates>;

export interface GenerateOptions {
  split: Split;
  /** Number of tasks; default DEFAULT_SPLIT_SIZES[split]. */
  n?: number;
  /** Any integer; default 0. */
  seed?: number;
  /** Context length bounds in estimated tokens (see `estimateTokens`); defaults 4096 and 200000. */
  minTokens?: number;
  maxTokens?: number;
  /** How context lengths are drawn between the bounds; default 'log-uniform'. */
  lengthDistribution?: LengthDistribution;
  /** Relative weights per type (normalised; missing types get 0); default DEFAULT_MIX. */
  mix?: Partial<Record<TaskType, number>>;
  /** Overrides of single variant rates, e.g. `{ niah: { near_miss: 0.8 } }`. */
  variantRates?: Partial<Record<TaskType, Partial<Record<string, number>>>>;
  /**
   * Share of tasks whose key-to-value sentences (needles, owners, homes, decoys) are written with invented frames
   * (`inventedSentence`: filler words between the key and the value) instead of the family's written ones; default 0.
   * Training data for a policy whose reads must not lean on the written wording; the heldout keeps 0.
   */
  inventedShare?: number;
  /**
   * Share of tasks whose negation, hypothetical, correction and past-state distractors are invented
   * (`inventedDistractor`), drawn independently of `inventedShare`; default 0.
   */
  inventedDistractorShare?: number;
}

export interface ResolvedGenerateOptions {
  split: Split;
  n: number;
  seed: number;
  minTokens: number;
  maxTokens: number;
  lengthDistribution: LengthDistribution;
  mix: Record<TaskType, number>;
  variantRates: Record<TaskType, VariantRates>;
  inventedShare: number;
  inventedDistractorShare: number;
}

function invalid(detail: string): TasksError {
  return new TasksError('INVALID_OPTIONS', detail);
}

/** An option that is a share: default 0, else a number in [0, 1] (INVALID_OPTIONS naming `name` otherwise). */
export function resolveShare(name: string, value: number | undefined): number {
  const p = value ?? 0;
  if (!(p >= 0 && p <= 1)) throw invalid(`${name} must be in [0, 1], got ${value}`);
  return p;
}

/** Fills in defaults and rejects options that cannot produce a dataset. */
export function resolveGenerateOptions(options: GenerateOptions): ResolvedGenerateOptions {
  const { split } = options;
  if (!SPLITS.includes(split)) throw invalid(`split must be one of ${SPLITS.join(', ')}, got "${String(split)}"`);
  const n = options.n ?? DEFAULT_SPLIT_SIZES[split];
  const seed = options.seed ?? 0;
  const minTokens = options.minTokens ?? DEFAULT_MIN_TOKENS;
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  if (!Number.isSafeInteger(n) || n < 0) throw invalid(`n must be a non-negative integer, got ${n}`);
  if (!Number.isSafeInteger(seed)) throw invalid(`seed must be an integer, got ${seed}`);
  if (!Number.isInteger(minTokens) || minTokens < MIN_CONTEXT_TOKENS)
    throw invalid(`min tokens must be an integer >= ${MIN_CONTEXT_TOKENS}, got ${minTokens}`);
  if (!Number.isInteger(maxTokens) || maxTokens < minTokens)
    throw invalid(`max tokens must be an integer >= min tokens (${minTokens}), got ${maxTokens}`);
  const lengthDistribution = options.lengthDistribution ?? 'log-uniform';
  if (lengthDistribution !== 'log-uniform' && lengthDistribution !== 'uniform')
    throw invalid(`length distribution must be log-uniform or uniform, got "${String(lengthDistribution)}"`);

  const weights = options.mix ?? DEFAULT_MIX;
  for (const key of Object.keys(weights))
    if (!TASK_TYPES.includes(key as TaskType)) throw invalid(`unknown task type in mix: "${key}"`);
  const raw = TASK_TYPES.map((type) => weights[type] ?? 0);
  if (raw.some((w) => !Number.isFinite(w) || w < 0)) throw invalid('mix weights must be finite and non-negative');
  const sum = raw.reduce((a, b) => a + b, 0);
  if (sum <= 0) throw invalid('mix weights must not all be zero');
  const mix = Object.fromEntries(TASK_TYPES.map((type, i) => [type, raw[i] / sum])) as Record<TaskType, number>;

  const variantRates = {} as Record<TaskType, VariantRates>;
  for (const key of Object.keys(options.variantRates ?? {}))
    if (!TASK_TYPES.includes(key as TaskType)) throw invalid(`unknown task type in variant rates: "${key}"`);
  for (const type of TASK_TYPES) {
    const defaults = DEFAULT_VARIANT_RATES[type];
    const overrides = options.variantRates?.[type] ?? {};
    for (const [name, rate] of Object.entries(overrides)) {
      if (!(name in defaults))
        throw invalid(`unknown variant "${name}" for ${type}; known: ${Object.keys(defaults).join(', ')}`);
      if (rate === undefined || !(rate >= 0 && rate <= 1)) throw invalid(`rate of ${type}.${name} must be in [0, 1]`);
    }
    variantRates[type] = { ...defaults, ...overrides } as VariantRates;
  }
  const inventedShare = resolveShare('inventedShare', options.inventedShare);
  const inventedDistractorShare = resolveShare('inventedDistractorShare', options.inventedDistractorShare);
  return {
    split,
    n,
    seed,
    minTokens,
    maxTokens,
    lengthDistribution,
    mix,
    variantRates,
    inventedShare,
    inventedDistractorShare,
  };
}

/**
 * Task types for indices 0..n-1: exact counts by largest remainder (so a 1000-task split with the default mix has
 * exactly 150/150/150/100/250/200), in a seeded shuffled order.
 */
export function planTaskTypes(options: ResolvedGenerateOptions): TaskType[] {
  const { n, mix } = options;
  const exact = TASK_TYPES.map((type) => mix[type] * n);
  const counts = exact.map(Math.floor);
  const byRemainder = TASK_TYPES.map((_, i) => i).sort(
    (a, b) => exact[b] - counts[b] - (exact[a] - counts[a]) || a - b,
  );
  for (let k = 0, left = n - counts.reduce((a, b) => a + b, 0); left > 0; k++, left--) counts[byRemainder[k]]++;
  const plan = TASK_TYPES.flatMap((type, i) => Array<TaskType>(counts[i]).fill(type));
  return new Rng(deriveSeed('plan', options.seed, options.split, n)).shuffle(plan);
}

/**
 * Length strata for indices 0..n-1: a seeded permutation, so that task i draws its length from the stratum
 * [k/n, (k+1)/n) of the distribution (k = strata[i]) and a split's lengths follow the distribution closely at any n.
 */
export function planLengthStrata(options: ResolvedGenerateOptions): number[] {
  const strata = Array.from({ length: options.n }, (_, i) => i);
  return new Rng(deriveSeed('lengths', options.seed, options.split, options.n)).shuffle(strata);
}

/**
 * Families for indices 0..n-1: train and eval tasks use the train families; heldout tasks alternate within each type
 * (from a seeded start per type), so each type's heldout tasks are half seen phrasings (train family, unseen entities) and
 * half unseen phrasings (heldout family).
 */
export function planFamilies(options: ResolvedGenerateOptions, plan: readonly TaskType[]): Family[] {
  if (options.split !== 'heldout') return plan.map(() => 'train');
  const seen = new Map<TaskType, number>();
  return plan.map((type) => {
    const k = seen.get(type) ?? 0;
    seen.set(type, k + 1);
    const flip = deriveSeed('families', options.seed, options.n, type) % 2;
    return (k + flip) % 2 === 0 ? 'train' : 'heldout';
  });
}

/** The target length of the task in `stratum`, in estimated tokens. */
export function sampleTargetTokens(rng: Rng, options: ResolvedGenerateOptions, stratum: number): number {
  const { n, split } = options;
  let { minTokens: lo, maxTokens: hi } = options;
  let u = (stratum + rng.float()) / n;
  // Heldout: the top HELDOUT_LONG_SHARE of strata lie above LONG_CONTEXT_TOKENS, the rest below (when the bounds
  // straddle it), so the long share is guaranteed at any n rather than expected.
  const longStrata = Math.ceil(HELDOUT_LONG_SHARE * n);
  if (split === 'heldout' && lo < LONG_CONTEXT_TOKENS && hi > LONG_CONTEXT_TOKENS) {
    if (stratum >= n - longStrata) {
      lo = LONG_CONTEXT_TOKENS;
      u = (stratum - (n - longStrata) + rng.float()) / longStrata;
    } else {
      hi = LONG_CONTEXT_TOKENS;
      u = (stratum + rng.float()) / (n - longStrata);
    }
  }
  const value = options.lengthDistribution === 'uniform' ? lo + u * (hi - lo) : lo * Math.exp(u * Math.log(hi / lo));
  return Math.min(hi, Math.max(lo, Math.round(value)));
}

/** The id of task `index` of a split generated with `seed`, e.g. "train-s7-42". */
export function taskId(split: Split, seed: number, index: number): string {
  return `${split}-s${seed}-${index}`;
}

/**
 * Which of task `index`'s wordings are invented, drawn from a stream of its own so that a task that invents nothing
 * is byte-identical to the same task generated without the invented shares.
 */
function invention(options: ResolvedGenerateOptions, index: number): Invention {
  const rng = new Rng(deriveSeed('invent', options.seed, options.split, index));
  return { frames: rng.chance(options.inventedShare), distractors: rng.chance(options.inventedDistractorShare) };
}

/** Builds one task. Each task draws from its own stream, seeded by (seed, split, index). */
export function buildTask(
  options: ResolvedGenerateOptions,
  index: number,
  type: TaskType,
  family: Family = 'train',
  stratum = index,
): Task {
  const rng = new Rng(deriveSeed('task', options.seed, options.split, index));
  const draft = BUILDERS[type].build(rng, {
    split: options.split,
    family,
    rates: options.variantRates[type],
    invent: invention(options, index),
  });
  const targetTokens = sampleTargetTokens(rng, options, stratum);
  const { context, needlePositions } = buildDocument(rng, targetTokens * CHARS_PER_TOKEN, draft.inserts);
  // Key order is fixed here: it is the byte order of every dataset file.
  return {
    id: taskId(options.split, options.seed, index),
    split: options.split,
    type,
    question: draft.question,
    context,
    answer: draft.answer,
    aliases: draft.aliases,
    context_tokens: estimateTokens(context),
    needle_positions: needlePositions,
    variants: draft.variants,
    meta: draft.meta,
  };
}

/**
 * Generates a split lazily, one task at a time, so a caller never holds more than one context in memory.
 * Deterministic: the same options give the same tasks, in the same order, byte for byte once serialised.
 * Throws TasksError(INVALID_OPTIONS) before yielding anything if the options are unusable.
 */
export function generateTasks(options: GenerateOptions): Generator<Task> {
  const resolved = resolveGenerateOptions(options);
  const plan = planTaskTypes(resolved);
  const families = planFamilies(resolved, plan);
  const strata = planLengthStrata(resolved);
  return (function* () {
    for (let index = 0; index < resolved.n; index++)
      yield buildTask(resolved, index, plan[index], families[index], strata[index]);
  })();
}

/** Task `index` of the split `generateTasks(options)` would produce, without generating the others. */
export function generateTask(options: GenerateOptions, index: number): Task {
  const resolved = resolveGenerateOptions(options);
  if (!Number.isInteger(index) || index < 0 || index >= resolved.n)
    throw invalid(`task index must be an integer in [0, ${resolved.n}), got ${index}`);
  const plan = planTaskTypes(resolved);
  return buildTask(
    resolved,
    index,
    plan[index],
    planFamilies(resolved, plan)[index],
    planLengthStrata(resolved)[index],
  );
}

/** Parses "niah=0.15,tracking=0.25,..." into mix weights. */
export function parseMix(text: string): Partial<Record<TaskType, number>> {
  const mix: Partial<Record<TaskType, number>> = {};
  for (const part of text.split(',').filter((p) => p.trim() !== '')) {
    const [name, value, extra] = part.split('=').map((s) => s.trim());
    const weight = Number(value);
    if (extra !== undefined || value === undefined || value === '' || !Number.isFinite(weight))
      throw invalid(`mix entry "${part}" is not type=weight`);
    if (!TASK_TYPES.includes(name as TaskType))
      throw invalid(`unknown task type in mix: "${name}"; known: ${TASK_TYPES.join(', ')}`);
    mix[name as TaskType] = weight;
  }
  return mix;
}

/** Parses "niah.negation=0.8,counting.case_trap=0" into variant-rate overrides. */
export function parseVariantRates(text: string): Partial<Record<TaskType, Record<string, number>>> {
  const rates: Partial<Record<TaskType, Record<string, number>>> = {};
  for (const part of text.split(',').filter((p) => p.trim() !== '')) {
    const match = /^\s*([a-z_]+)\.([a-z_]+)\s*=\s*([0-9.eE+-]+)\s*$/.exec(part);
    if (match === null) throw invalid(`variant rate "${part}" is not type.variant=rate`);
    const [, type, variant, value] = match;
    if (!TASK_TYPES.includes(type as TaskType)) throw invalid(`unknown task type in variant rates: "${type}"`);
    (rates[type as TaskType] ??= {})[variant] = Number(value);
  }
  return rates;
}
