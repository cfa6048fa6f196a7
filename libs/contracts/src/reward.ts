import { z } from 'zod';

/**
 * A reward component's name: how run configs, results, Episode rows, metric labels and the dashboard refer to it.
 * The components themselves (name, scoring function, gate) are registered in libs/rewards.
 */
export const RewardComponentNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,62}$/, 'a reward component name is snake_case, e.g. "token_budget"');

/** The component weighted by `formatBonus`: a bonus on top of `weights`, which sum to 1. */
export const FORMAT_COMPONENT = 'format';

/** The weighted components of FATHOM's reward v3 and their default weights. */
export const DEFAULT_REWARD_WEIGHTS: Readonly<Record<string, number>> = Object.freeze({
  correctness: 0.7,
  token_budget: 0.15,
  recursion_efficiency: 0.15,
});

/** Shapes of the token-budget curve; the formulas are in `libs/rewards/src/components/token-budget.ts`. */
export const TOKEN_BUDGET_VARIANTS = ['capped_linear', 'exponential'] as const;
export const TokenBudgetVariantSchema = z.enum(TOKEN_BUDGET_VARIANTS);
export type TokenBudgetVariant = z.infer<typeof TokenBudgetVariantSchema>;

/** How an answer is read when the final turn has no `<answer>` tag. */
export const UNTAGGED_ANSWER_POLICIES = ['last_line', 'none'] as const;
export const UntaggedAnswerPolicySchema = z.enum(UNTAGGED_ANSWER_POLICIES);
export type UntaggedAnswerPolicy = z.infer<typeof UntaggedAnswerPolicySchema>;

/**
 * What a trajectory's total is: `task`, FATHOM's reward computed from the task's gold answer (the formula below);
 * `env`, the sum of the rewards the environment reported over the episode (OpenEnv's `reward` on each observation),
 * 0 when it reported none, with FATHOM's components still computed beside it as diagnostics.
 */
export const REWARD_SOURCES = ['task', 'env'] as const;
export const RewardSourceSchema = z.enum(REWARD_SOURCES);
export type RewardSource = z.infer<typeof RewardSourceSchema>;

/** Tolerance for "the weights sum to 1", so that 0.7 + 0.15 + 0.15 in floating point passes. */
export const REWARD_WEIGHT_SUM_TOLERANCE = 1e-6;

const weight = z.number().min(0).max(1);

/**
 * Reward configuration: part of a run's config (embed this schema) and stored with the run.
 * Every field has a default; `RewardConfigSchema.parse({})` gives FATHOM's reward v3.
 * Unknown keys are rejected.
 *
 * total = min(cap, Σ weights[name]·name + formatBonus·format)   over the components `weights` names
 * where cap = wrongAnswerCap when the answer is wrong and 1 + formatBonus otherwise.
 */
export const RewardConfigSchema = z
  .strictObject({
    /** Where the total comes from (`REWARD_SOURCES`); `env` needs episodes run in an OpenEnv environment. */
    source: RewardSourceSchema.default('task'),
    /**
     * The weighted components the reward composes, by name, and their weights; must sum to 1. Each name must be a
     * component registered in libs/rewards. Given, it replaces the default map (no per-name defaults are merged in).
     */
    weights: z.record(RewardComponentNameSchema, weight).default(() => ({ ...DEFAULT_REWARD_WEIGHTS })),
    /** The weight of the `format` component: an additive bonus for a well-formed `<answer>` tag, never a gate. */
    formatBonus: z.number().min(0).max(1).default(0.1),
    /** A wrong (or missing) answer never scores above this total, whatever the other components say. */
    wrongAnswerCap: z.number().min(0).max(1).default(0.25),
    tokenBudget: z
      .strictObject({
        /** Fraction of the context's tokens the episode may spend (root completion + sub-calls) before the score hits 0 (capped_linear) or 1/e (exponential). */
        alpha: z.number().positive().default(0.2),
        variant: TokenBudgetVariantSchema.default('capped_linear'),
      })
      .prefault({}),
    recursion: z
      .strictObject({
        /** Efficiency decays linearly from 1 at 0 calls to 0 at this many `llm()` calls: max(0, 1 − calls / zeroAtCalls). */
        zeroAtCalls: z.number().int().positive().default(4),
      })
      .prefault({}),
    answer: z
      .strictObject({
        /** Answers longer than this (characters, before normalisation) are rejected: gold answers are short, and this stops context dumps. */
        maxChars: z.number().int().positive().default(256),
        /** Without an `<answer>` tag: 'last_line' grades the final turn's last non-empty line (no format bonus); 'none' grades nothing. */
        untagged: UntaggedAnswerPolicySchema.default('last_line'),
      })
      .prefault({}),
  })
  .superRefine((config, ctx) => {
    const weights = Object.entries(config.weights);
    if (config.weights[FORMAT_COMPONENT] !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['weights', FORMAT_COMPONENT],
        message: `${FORMAT_COMPONENT} is weighted by formatBonus, not in weights`,
      });
    }
    const sum = weights.reduce((total, [, w]) => total + w, 0);
    if (Math.abs(sum - 1) > REWARD_WEIGHT_SUM_TOLERANCE) {
      ctx.addIssue({
        code: 'custom',
        path: ['weights'],
        message: `reward weights must sum to 1, got ${weights.map(([name, w]) => `${name} ${w}`).join(' + ')} = ${sum}`,
      });
    }
  });
export type RewardConfig = z.infer<typeof RewardConfigSchema>;
export type RewardConfigInput = z.input<typeof RewardConfigSchema>;

/**
 * Each composed component's value in [0, 1], by name: every component the config's `weights` names, then `format`.
 * A gated component (`recursion_efficiency`) is 0 unless the answer is correct.
 */
export const RewardComponentsSchema = z.record(RewardComponentNameSchema, z.number().min(0).max(1));
export type RewardComponents = z.infer<typeof RewardComponentsSchema>;

/** The component names of some results, in the order first seen: what a group's or a step's statistics cover. */
export function rewardComponentNames(results: readonly { components: RewardComponents }[]): string[] {
  return [...new Set(results.flatMap((result) => Object.keys(result.components)))];
}

/** Where the graded answer came from. */
export const ANSWER_SOURCES = ['tag', 'repl', 'last_line', 'none'] as const;
/** Why an answer was not graded as given (null when it was). */
export const ANSWER_REJECTIONS = ['no_answer', 'empty', 'too_long', 'copied_question'] as const;
export const CALL_COUNT_SOURCES = ['executed', 'static'] as const;

/** Why the reward came out as it did; logged per episode and stored with it. */
export const RewardDiagnosticsSchema = z.strictObject({
  /** The graded answer as extracted (cut to the configured maxChars), or null. */
  answer: z.string().nullable(),
  answerSource: z.enum(ANSWER_SOURCES),
  /** Number of `<answer>` opening tags in the final turn. */
  tagCount: z.number().int().nonnegative(),
  rejection: z.enum(ANSWER_REJECTIONS).nullable(),
  /** The gold answer or alias that matched, or null. */
  matched: z.string().nullable(),
  matchKind: z.enum(['numeric', 'text']).nullable(),
  /** `llm()` calls counted for recursion efficiency. */
  llmCalls: z.number().int().nonnegative(),
  callCountSource: z.enum(CALL_COUNT_SOURCES),
  /** Code blocks that acorn could not parse, counted by the tolerant fallback instead (static counting only). */
  unparsedCodeBlocks: z.number().int().nonnegative(),
  /** Root completion plus sub-call tokens. */
  tokensSpent: z.number().nonnegative(),
  /** alpha · context_tokens. */
  tokenBudget: z.number().nonnegative(),
  /** Recursion efficiency before the "paid only when correct" rule. */
  recursionEfficiencyRaw: z.number().min(0).max(1),
  /** The weighted sum before the cap. */
  uncappedTotal: z.number().nonnegative(),
  /** True when the cap lowered the total. */
  capped: z.boolean(),
});
export type RewardDiagnostics = z.infer<typeof RewardDiagnosticsSchema>;

/** The score of one trajectory: in [0, 1 + formatBonus] from the task; as the environment gave it from `env`. */
export const RewardResultSchema = z.strictObject({
  total: z.number(),
  components: RewardComponentsSchema,
  diagnostics: RewardDiagnosticsSchema,
});
export type RewardResult = z.infer<typeof RewardResultSchema>;

export const MeanStdSchema = z.strictObject({ mean: z.number(), std: z.number().nonnegative() });
export type MeanStd = z.infer<typeof MeanStdSchema>;

/** The score of a GRPO group: what the reward-service hands on and the learner logs. */
export const GroupRewardSchema = z.strictObject({
  /** Total reward per trajectory, in input order. */
  rewards: z.array(z.number()),
  results: z.array(RewardResultSchema),
  /** Statistics of the totals; std is the sample standard deviation (`meanStd`). */
  totals: z.strictObject({
    mean: z.number(),
    std: z.number().nonnegative(),
    min: z.number(),
    max: z.number(),
  }),
  /** Mean and std of each component over the group, by name. */
  perComponent: z.record(RewardComponentNameSchema, MeanStdSchema),
  /** True when every total in the group is the same: the group carries no GRPO advantage. */
  zeroStd: z.boolean(),
});
export type GroupReward = z.infer<typeof GroupRewardSchema>;
