import { DEFAULT_LIMITS, resolveLimits, type SandboxLimits } from '@fathom/sandbox';
import { DEFAULT_PROMPT_STYLE, EpisodeSettingsSchema, PromptStyleSchema } from '@fathom/contracts';
import { z } from 'zod';
import { DEFAULT_READER_WINDOW_CHARS } from '../subcall';
import { RolloutError } from './errors';

const positiveInt = z.number().int().positive();

/**
 * How episodes are run. Unknown keys are rejected, so a typo in a run config fails at load rather than being
 * silently ignored. Defaults fit the tiny default model on a laptop-class CPU.
 */
export const EpisodeConfigSchema = z
  .strictObject({
    /** maxTurns, maxTokensPerTurn, maxEpisodeTokens, maxInfraRetries and trainSubcalls, as a run config's `rollout`. */
    ...EpisodeSettingsSchema.shape,
    sampling: z
      .strictObject({
        /** 0 = greedy (eval). */
        temperature: z.number().nonnegative().default(1),
        topP: z.number().gt(0).lte(1).default(1),
        topK: z.number().int().nonnegative().default(0),
      })
      .prefault({}),
    promptStyle: PromptStyleSchema.default({ ...DEFAULT_PROMPT_STYLE }),
    subcalls: z
      .strictObject({
        /** False: every `llm()` call fails inside the guest ("llm() is disabled"), as in the no-llm() baseline. */
        enabled: z.boolean().default(true),
        /** Chunks up to this many characters are read by a leaf call; larger ones start a child episode. */
        readerWindowChars: positiveInt.default(DEFAULT_READER_WINDOW_CHARS),
        /** New tokens of a leaf call's answer. */
        maxCompletionTokens: positiveInt.default(128),
        /** Turns of a child episode. */
        maxTurns: positiveInt.default(4),
        /**
         * Extractive leaf reads: the answer is decoded as a span of whole words of the chunk or as "unknown"
         * (`SampleRequest.spanOf`, `spanWordTokens`), so the reader chooses where a value starts and ends and copies it
         * by construction; it cannot stop inside a word.
         * Needs a local model policy. With `trainSubcalls` each read's sequence records its constraint
         * (`TokenSequence.span`), and the learner scores its tokens under it.
         */
        extractive: z.boolean().default(false),
        /**
         * Temperature of leaf reads (0 = greedy); absent: the episode's `sampling.temperature`. A reader whose tokens
         * are not trained — a frozen reader checkpoint, or the policy when `trainSubcalls` is off — can read
         * greedily while the policy samples its turns, so a turn's reward does not hang on a sampled read. Not with
         * `trainSubcalls`, where trained sub-call tokens are sampled like the root's — unless `trainRoot` is off: then
         * only the reads are trained, and they may be sampled at another temperature than the frozen root's turns.
         */
        leafTemperature: z.number().nonnegative().max(2).optional(),
      })
      .prefault({}),
    /**
     * False: the root's turns (and child episodes) are sampled by a frozen policy and not trained; the learner trains
     * only the leaf reads, which the trained policy samples as the reader (GRPO of the reader, `model.rootCheckpoint`).
     * Needs `trainSubcalls`.
     */
    trainRoot: z.boolean().default(true),
    /**
     * The environment scores the episode (`reward.source` `env`): a root episode's text answer (an `<answer>` tag,
     * not a cell's `answer()`) is sent to the sandbox as its final action (`SandboxEpisode.submit`), so that the
     * environment sees and rewards it. The rewards it reports are summed into `envReward` either way.
     */
    submitAnswers: z.boolean().default(false),
    /** Overrides of the sandbox pool's limits for every episode (root and child). */
    sandboxLimits: z
      .strictObject(
        Object.fromEntries(Object.keys(DEFAULT_LIMITS).map((key) => [key, z.number().optional()])) as Record<
          keyof SandboxLimits,
          z.ZodOptional<z.ZodNumber>
        >,
      )
      .default({}),
  })
  .superRefine((c, ctx) => {
    if (!c.trainRoot && !c.trainSubcalls)
      ctx.addIssue({
        code: 'custom',
        path: ['trainSubcalls'],
        message: 'trainRoot false needs trainSubcalls: the leaf reads are the only trained tokens',
      });
    if (c.subcalls.leafTemperature !== undefined && c.trainSubcalls && c.trainRoot)
      ctx.addIssue({
        code: 'custom',
        path: ['subcalls', 'leafTemperature'],
        message:
          "subcalls.leafTemperature with trainSubcalls: trained sub-call tokens are sampled at the root's temperature",
      });
  });

export type EpisodeConfigInput = z.input<typeof EpisodeConfigSchema>;

export interface EpisodeConfig extends Omit<z.output<typeof EpisodeConfigSchema>, 'sandboxLimits'> {
  sandboxLimits: Partial<SandboxLimits>;
}

/** Validates a partial config and fills in the defaults; throws `RolloutError` (INVALID_CONFIG) naming the field. */
export function resolveEpisodeConfig(input: EpisodeConfigInput = {}): EpisodeConfig {
  const parsed = EpisodeConfigSchema.safeParse(input);
  if (!parsed.success) throw new RolloutError('INVALID_CONFIG', z.prettifyError(parsed.error));
  try {
    resolveLimits(DEFAULT_LIMITS, parsed.data.sandboxLimits);
  } catch (error) {
    throw new RolloutError('INVALID_CONFIG', `sandboxLimits: ${(error as Error).message}`);
  }
  return parsed.data as EpisodeConfig;
}
