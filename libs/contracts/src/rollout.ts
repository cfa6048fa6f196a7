import { z } from 'zod';

/**
 * The training trajectory of one rollout: what the episode loop (`libs/rlm`) produces and the learner trains on.
 * Token-in, token-out: `ids` are the exact ids the policy was fed and sampled, never re-encoded text; `mask`
 * marks the model's own tokens (1) against prompt and observation tokens (0); `logprobs` are the behaviour
 * log-probs. The three arrays have one entry per id, and the schema rejects a record where they disagree.
 */

/** How an episode ended. Mirrors Episode.status in the database. */
export const EPISODE_STATUSES = ['ok', 'truncated', 'timeout', 'sandbox_error', 'infra_error'] as const;
export const EpisodeStatusSchema = z.enum(EPISODE_STATUSES);
export type EpisodeStatus = z.infer<typeof EpisodeStatusSchema>;

/** The precise reason an episode stopped; `status` is its coarse class. */
export const STOP_REASONS = [
  'answer',
  'turn_limit',
  'token_limit',
  'sandbox_timeout',
  'sandbox_fatal',
  'infra',
] as const;
export const StopReasonSchema = z.enum(STOP_REASONS);
export type StopReason = z.infer<typeof StopReasonSchema>;

/** What an `infra_error` was; absent for every other status. */
export const INFRA_ERROR_CODES = ['worker_crashed', 'policy_error', 'token_mismatch', 'invalid_trajectory'] as const;
export const InfraErrorCodeSchema = z.enum(INFRA_ERROR_CODES);
export type InfraErrorCode = z.infer<typeof InfraErrorCodeSchema>;

export const EpisodeTurnSchema = z.strictObject({
  /** The model's text for the turn (its sampled ids decoded, without the end-of-turn token). */
  completion: z.string(),
  /** What the turn asked for: code run in the sandbox, the final answer, or neither (a nudge is fed back). */
  action: z.enum(['code', 'answer', 'none']),
  /** The observation fed back after the turn; null for the last turn (answer, or the episode stopped). */
  observation: z.string().nullable(),
  /** Ids the model sampled for this turn (including the end-of-turn token when it stopped on one). */
  completionTokens: z.number().int().nonnegative(),
  /** The sandbox's error code for this turn's code (`runtime`, `syntax`, `timeout`, …), or null. */
  sandboxError: z.string().nullable(),
  /** Why the sampler stopped this turn. */
  finishReason: z.enum(['stop_token', 'stop_string', 'length']),
  /** Time spent sampling this turn (the batched call it was part of), ms. */
  generationMs: z.number().nonnegative(),
  /** Time spent running this turn's code in the sandbox (including its `llm()` calls), ms. */
  envMs: z.number().nonnegative(),
});
export type EpisodeTurn = z.infer<typeof EpisodeTurnSchema>;

/**
 * A node of the recursion tree. The root (depth 0) is the episode itself; each child is one `llm()` call made by
 * the code of its parent, with the one meaning `llm(q, chunk)` has everywhere (`planSubcall` in `@fathom/rlm`): a
 * chunk that fits the reader window is a direct reading completion (`kind: 'leaf'`), a larger one a child RLM
 * episode over the chunk (`kind: 'episode'`), depth-capped. Token counts of a node include its descendants'.
 */
export interface RecursionTreeNode {
  depth: number;
  kind: RecursionNodeKind;
  /** The question: the task's for the root, the `llm()` prompt for a call. */
  prompt: string;
  /** Characters of the chunk passed to `llm()` (for the root: of the document). */
  chunkChars: number;
  /** The answer returned (to the caller, or the root's final answer); null when there was none. */
  answer: string | null;
  /** Prompt tokens fed to the policy at this node (every turn's new prompt and observation ids). */
  promptTokens: number;
  /** Tokens the policy sampled at this node and below. */
  completionTokens: number;
  latencyMs: number;
  /** Turns of a child episode (1 for a plain completion). */
  turns: number;
  /** Why the call failed (policy failure, nested error); absent when it returned. */
  error?: string;
  /**
   * The node's exact token sequence, kept only when the run trains on sub-call tokens (`trainSubcalls`):
   * the root's tokens live on the trajectory itself.
   */
  sequence?: TokenSequence;
  /** How a leaf read by a span head (`SpanRead`) chose its answer; absent for a read by generation. */
  read?: SpanRead;
  children: RecursionTreeNode[];
}

/**
 * A leaf read answered by a span head: the span of the prompt's tokens it chose (start = end = `none` when it
 * answered "unknown"), the log-probability of that choice, and the inputs a learner needs to score it again.
 */
export interface SpanRead {
  head: 'span';
  start: number;
  /** Inclusive. */
  end: number;
  /** log p(start) + log p(end | start) at the read's temperature. */
  logprob: number;
  /** exp(logprob). */
  probability: number;
  /**
   * Kept only when the run trains on sub-calls: the prompt's ids, exact-match, word-feature, word-tag and word-vector
   * inputs (`feature`: a `wordFeature` id per id; `tag`: a part-of-speech tag index per id; `vector`: a row of the
   * reader's word vectors per id) and span candidates.
   */
  input?: {
    ids: number[];
    match: number[];
    feature?: number[];
    tag?: number[];
    vector?: number[];
    starts: number[];
    ends: number[];
    none: number;
  };
}

/**
 * The span constraint a sequence's model tokens were decoded under (an extractive read, `SpanConstraint` of
 * `@fathom/model`): the learner replays it to score each token under the distribution it was sampled from.
 */
export interface SpanSpec {
  /** The token runs a completion copies from (the chunk, "unknown"). */
  sources: number[][];
  /** The ids that end a completion once its span is non-empty. */
  stopTokens: number[];
  /** The ids that are part of a word: spans start and end at word edges. */
  wordTokens?: number[];
}

/** Ids, their behaviour log-probs (0 where mask is 0) and the model-token mask, one entry per id. */
export interface TokenSequence {
  ids: number[];
  logprobs: number[];
  mask: number[];
  /** Present when the model tokens were decoded under a span constraint. */
  span?: SpanSpec;
}

/** The first violated invariant of a token sequence, or null: lengths agree, mask is 0/1, log-probs finite and 0 off-mask. */
export function tokenSequenceProblem(seq: TokenSequence): string | null {
  if (seq.mask.length !== seq.ids.length) return `mask has ${seq.mask.length} entries for ${seq.ids.length} ids`;
  if (seq.logprobs.length !== seq.ids.length)
    return `logprobs has ${seq.logprobs.length} entries for ${seq.ids.length} ids`;
  for (let i = 0; i < seq.ids.length; i++) {
    if (seq.mask[i] !== 0 && seq.mask[i] !== 1) return `mask[${i}] is ${seq.mask[i]}, not 0 or 1`;
    if (!Number.isFinite(seq.logprobs[i])) return `logprobs[${i}] is ${seq.logprobs[i]}`;
    if (seq.mask[i] === 0 && seq.logprobs[i] !== 0) return `logprobs[${i}] is ${seq.logprobs[i]} on a prompt token`;
    if (seq.logprobs[i] > 0) return `logprobs[${i}] is positive (${seq.logprobs[i]})`;
  }
  if (seq.span !== undefined) {
    if (seq.span.sources.every((s) => s.length === 0)) return 'span has no source token to copy';
    if (seq.span.stopTokens.length === 0) return 'span has no stop token';
  }
  return null;
}

const TokenIdsSchema = z.array(z.number().int().nonnegative());

const TokenSequenceShape = {
  ids: TokenIdsSchema,
  logprobs: z.array(z.number()),
  mask: z.array(z.number().int()),
};

const SpanSpecSchema = z.strictObject({
  sources: z.array(TokenIdsSchema),
  stopTokens: TokenIdsSchema,
  wordTokens: TokenIdsSchema.optional(),
});

export const TokenSequenceSchema: z.ZodType<TokenSequence> = z
  .strictObject({ ...TokenSequenceShape, span: SpanSpecSchema.optional() })
  .superRefine((seq, issue) => {
    const problem = tokenSequenceProblem(seq);
    if (problem !== null) issue.addIssue({ code: 'custom', message: problem });
  });

const PositionsSchema = z.array(z.number().int().nonnegative());

export const SpanReadSchema: z.ZodType<SpanRead> = z.strictObject({
  head: z.literal('span'),
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
  logprob: z.number().max(0),
  probability: z.number().min(0).max(1),
  input: z
    .strictObject({
      ids: TokenIdsSchema,
      match: z.array(z.union([z.literal(0), z.literal(1)])),
      feature: z.array(z.number().int().nonnegative().max(255)).optional(),
      tag: z.array(z.number().int().nonnegative().max(255)).optional(),
      vector: z.array(z.number().int().nonnegative()).optional(),
      starts: PositionsSchema,
      ends: PositionsSchema,
      none: z.number().int().nonnegative(),
    })
    .optional(),
});

export const RECURSION_NODE_KINDS = ['root', 'episode', 'leaf'] as const;
export type RecursionNodeKind = (typeof RECURSION_NODE_KINDS)[number];

/** Trees stored before leaf calls were named `leaf` call them `completion`; they read as `leaf`. */
const RecursionNodeKindSchema = z.preprocess(
  (kind) => (kind === 'completion' ? 'leaf' : kind),
  z.enum(RECURSION_NODE_KINDS),
);

export const RecursionTreeNodeSchema: z.ZodType<RecursionTreeNode> = z.lazy(() =>
  z.strictObject({
    depth: z.number().int().nonnegative(),
    kind: RecursionNodeKindSchema,
    prompt: z.string(),
    chunkChars: z.number().int().nonnegative(),
    answer: z.string().nullable(),
    promptTokens: z.number().int().nonnegative(),
    completionTokens: z.number().int().nonnegative(),
    latencyMs: z.number().nonnegative(),
    turns: z.number().int().nonnegative(),
    error: z.string().optional(),
    sequence: TokenSequenceSchema.optional(),
    read: SpanReadSchema.optional(),
    children: z.array(RecursionTreeNodeSchema),
  }),
);

export const EpisodeTrajectorySchema = z
  .strictObject({
    taskId: z.string(),
    /** Index of this sample within its group (0 … G-1). */
    sampleIndex: z.number().int().nonnegative(),
    /** 0 for the first try; n for the n-th retry after an infra error. */
    attempt: z.number().int().nonnegative(),
    /**
     * How the rollout ended: `ok` (answered), `truncated` (turn or token limit), `timeout` (the policy's code hit a
     * sandbox time limit), `sandbox_error` (the policy's code broke the sandbox otherwise, e.g. its memory limit) —
     * all scored as usual — or `infra_error` (worker crash, policy failure, token mismatch): retried, never
     * scored, excluded from the update when retries run out.
     */
    status: EpisodeStatusSchema,
    stopReason: StopReasonSchema,
    /** Set exactly when status is `infra_error`. */
    infraError: z.strictObject({ code: InfraErrorCodeSchema, message: z.string() }).optional(),
    turns: z.array(EpisodeTurnSchema),
    /** The final answer of the last turn, or null. */
    answer: z.string().nullable(),
    ...TokenSequenceShape,
    /** Ids of the first prompt (system, question, context metadata, first assistant header). */
    promptTokens: z.number().int().nonnegative(),
    tokens: z.strictObject({
      /** Ids the root policy sampled over all turns (the mask's ones). */
      completion: z.number().int().nonnegative(),
      /** Observation and turn-header ids appended after the first prompt. */
      observation: z.number().int().nonnegative(),
      /** Prompt plus completion tokens of every `llm()` call, at every depth. */
      subcall: z.number().int().nonnegative(),
    }),
    recursionTree: RecursionTreeNodeSchema,
    /** Policy version that sampled every token of this trajectory (as the policy reported it). */
    policyVersion: z.number().int().nonnegative(),
    /** Whether the learner should train on the sub-call sequences in `recursionTree` (run config). */
    trainSubcalls: z.boolean(),
    /**
     * False when a frozen policy wrote the root's turns (`model.rootCheckpoint`): the learner trains only the leaf
     * reads in `recursionTree`, which the trained policy sampled. Absent: true.
     */
    trainRoot: z.boolean().optional(),
    /** The sum of the rewards the environment reported over the root episode; absent when it gave none. */
    envReward: z.number().optional(),
    timings: z.strictObject({
      /** Sampling time of the root's turns, ms. */
      generationMs: z.number().nonnegative(),
      /** Sandbox time of the root's turns (including `llm()` calls), ms. */
      envMs: z.number().nonnegative(),
      totalMs: z.number().nonnegative(),
    }),
  })
  .superRefine((traj, issue) => {
    const problem = tokenSequenceProblem(traj);
    if (problem !== null) issue.addIssue({ code: 'custom', path: ['mask'], message: problem });
    if ((traj.status === 'infra_error') !== (traj.infraError !== undefined))
      issue.addIssue({ code: 'custom', path: ['infraError'], message: 'infraError is set exactly for infra_error' });
    const modelTokens = traj.mask.reduce((a, b) => a + b, 0);
    if (traj.status !== 'infra_error' && modelTokens !== traj.tokens.completion)
      issue.addIssue({
        code: 'custom',
        path: ['tokens', 'completion'],
        message: `tokens.completion is ${traj.tokens.completion} but the mask marks ${modelTokens} model tokens`,
      });
  });
export type EpisodeTrajectory = z.infer<typeof EpisodeTrajectorySchema>;
