import { z } from 'zod';

/**
 * The most policy versions a group may lag behind the learner (`maxStaleness`): the learner keeps that many + 1
 * versions of the weights in memory to serve them, and a group much older than a few updates is off-policy anyway.
 */
export const MAX_STALENESS = 16;

/**
 * GRPO hyper-parameters. Names follow TRL where one exists (beta, epsilon, epsilon_high, scale_rewards,
 * loss_type) so TRL users can read a FATHOM config.
 */
export const GrpoConfigSchema = z
  .object({
    /** Completions sampled per prompt (the group size G). */
    groupSize: z.number().int().min(2).default(8),
    /** KL coefficient against the frozen reference policy (k3 estimator). 0 disables the KL term. */
    beta: z.number().min(0).default(0.04),
    /** Lower clip range: the ratio is clipped below at 1 - epsilonLow. */
    epsilonLow: z.number().positive().max(1).default(0.2),
    /** Upper clip range: the ratio is clipped above at 1 + epsilonHigh (DAPO's clip-higher when > epsilonLow). */
    epsilonHigh: z.number().positive().default(0.2),
    /**
     * "group": advantages (r - mean) / (std + advantageEps), as in GRPO.
     * "none": advantages r - mean, as in Dr. GRPO (no std normalisation).
     */
    scaleRewards: z.enum(['group', 'none']).default('group'),
    advantageEps: z.number().positive().default(1e-4),
    /**
     * "keep": every completion's advantage trains, as in GRPO. "drop": advantages below 0 become 0, so only the
     * completions better than their group's mean are reinforced (the filtered self-training of RAFT, Dong et al. 2023,
     * and ReST, Gulcehre et al. 2023, within GRPO's update): no gradient pushes mass off a failed completion's tokens.
     */
    negativeAdvantages: z.enum(['keep', 'drop']).default('keep'),
    /**
     * "token": sum of per-token losses over all model tokens of the batch divided by their count (DAPO).
     * "sequence": mean over sequences of each sequence's token mean (the original GRPO).
     * "dr_grpo": sum of per-token losses divided by (sequences × maxCompletionTokens), a constant (Dr. GRPO).
     */
    lossAggregation: z.enum(['token', 'sequence', 'dr_grpo']).default('token'),
    /** The constant normaliser of "dr_grpo" aggregation. */
    maxCompletionTokens: z.number().int().positive().default(2048),
    /** Skip groups whose rewards all equal (zero std): they carry no advantage signal. */
    dynamicSampling: z.boolean().default(true),
    /** How many policy versions old a group may be; 0 = synchronous (only the current version). */
    maxStaleness: z.number().int().min(0).max(MAX_STALENESS).default(0),
  })
  .strict()
  .refine((c) => c.epsilonLow < 1, { message: 'epsilonLow must be below 1 so the lower clip bound stays positive' });

export type GrpoConfig = z.infer<typeof GrpoConfigSchema>;
