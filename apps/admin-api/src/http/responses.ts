import { EvalRunJobSchema, QueueNameSchema, RunConfigSchema, TASK_TYPES } from '@fathom/contracts';
import { z } from 'zod';
import { ADMIN_ERROR_CODES } from '../errors';
import { RUN_STATUSES } from '../runs/run.schemas';
import { STEP_SERIES } from '../runs/step-series.reader';

/**
 * The admin API's replies as they go over the wire (dates as ISO strings, 64-bit ids as decimal strings). The
 * OpenAPI document is generated from these, and the API tests parse every reply they get with them, so a field
 * the code adds, drops or renames fails a test until the document says so too.
 */

const DateTimeSchema = z.iso.datetime();
const BigIdSchema = z.string().regex(/^\d+$/).describe('64-bit id as a decimal string');

export const ErrorReplySchema = z.strictObject({
  code: z.enum(ADMIN_ERROR_CODES),
  message: z.string(),
  details: z.unknown().optional().describe('For VALIDATION_ERROR the list of {path, message, code} issues'),
});

export const RunReplySchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  status: z.enum(RUN_STATUSES),
  step: z.number().int().describe('Last completed step; 0 before the first'),
  policyVersion: z.number().int(),
  config: RunConfigSchema,
  error: z.string().nullable(),
  createdAt: DateTimeSchema,
  updatedAt: DateTimeSchema,
  startedAt: DateTimeSchema.nullable(),
  finishedAt: DateTimeSchema.nullable(),
});

export const RunListReplySchema = z.array(
  RunReplySchema.extend({
    latestStep: z
      .strictObject({ step: z.number().int(), rewardMean: z.number() })
      .nullable()
      .describe('The newest recorded step and its mean reward; null before the first step'),
  }),
);

export const RunDetailReplySchema = RunReplySchema.extend({
  policyVersions: z.array(
    z.strictObject({
      runId: z.string(),
      version: z.number().int(),
      step: z.number().int().describe('The learner step whose update produced this version (0 for the initial one)'),
      checkpointPath: z.string().nullable(),
      createdAt: DateTimeSchema,
    }),
  ),
});

export const StepsReplySchema = z.strictObject({
  runId: z.string(),
  items: z.array(
    z.strictObject({
      runId: z.string(),
      step: z.number().int(),
      policyVersion: z.number().int(),
      loss: z.number(),
      kl: z.number(),
      clipRatio: z.number(),
      rewardMean: z.number(),
      rewardStd: z.number(),
      fracRewardZeroStd: z.number(),
      groupsSubmitted: z.number().int(),
      groupsTrainable: z.number().int(),
      tokens: z.number().int(),
      timings: z.record(z.string(), z.unknown()).describe('Seconds per phase: generation, scoring, update, sync'),
      metrics: z.record(z.string(), z.unknown()).describe("Every other metric of the step, by TRL's names"),
      createdAt: DateTimeSchema,
      components: z.array(
        z.strictObject({
          runId: z.string(),
          step: z.number().int(),
          component: z.string(),
          mean: z.number(),
          std: z.number(),
        }),
      ),
    }),
  ),
});

const seriesColumn = z.array(z.number().nullable());
export const SeriesReplySchema = z.strictObject({
  runId: z.string(),
  steps: z.array(z.number().int()).describe('The step of the i-th value of every column'),
  series: z.strictObject(Object.fromEntries(Object.keys(STEP_SERIES).map((name) => [name, seriesColumn]))),
  components: z.record(z.string(), seriesColumn).describe('Mean of each reward component per step'),
});

const EpisodeSummaryShape = {
  id: BigIdSchema,
  runId: z.string(),
  step: z.number().int(),
  groupId: z.string(),
  sampleIndex: z.number().int(),
  taskId: z.string(),
  taskType: z.enum(TASK_TYPES),
  contextTokens: z.number().int(),
  policyVersion: z.number().int(),
  status: z.string().describe('ok, truncated, timeout, sandbox_error or infra_error'),
  reward: z.number(),
  rewardComponents: z
    .record(z.string(), z.number())
    .describe("Each reward component's value by name: the components the run's reward config composed"),
  llmCalls: z.number().int(),
  tokens: z.number().int(),
  turns: z.number().int(),
  answer: z.string().nullable(),
  goldAnswer: z.string(),
};

export const EpisodesReplySchema = z.strictObject({
  items: z.array(z.strictObject(EpisodeSummaryShape)),
  nextCursor: BigIdSchema.nullable().describe('Pass as cursor for the next page; null on the last'),
});

export const EpisodeReplySchema = z.strictObject({
  ...EpisodeSummaryShape,
  transcript: z.unknown().describe('The prompt, then each turn: the model text and the observation'),
  recursionTree: z.unknown().describe('The executed llm() calls as a tree'),
  createdAt: DateTimeSchema,
});

export const EvalAcceptedReplySchema = z.strictObject({
  evalId: z.string(),
  jobId: z.string(),
  status: z.literal('queued'),
  job: EvalRunJobSchema,
});

export const EvalSummaryReplySchema = z.strictObject({
  evalId: z.string(),
  checkpoint: z.string(),
  split: z.string(),
  runId: z.string().nullable(),
  createdAt: DateTimeSchema.describe('When its first row was written'),
  rows: z.number().int().describe('EvalResult rows of this evaluation'),
});

export const EvalResultReplySchema = z.strictObject({
  id: BigIdSchema,
  evalId: z.string(),
  runId: z.string().nullable(),
  checkpoint: z.string(),
  split: z.string(),
  taskType: z.string().describe('"all" or a task type'),
  lengthBucket: z.string().describe('"all" or a context-length bucket such as "4-16K"'),
  n: z.number().int(),
  accuracy: z.number(),
  meanTokens: z.number(),
  meanLlmCalls: z.number(),
  createdAt: DateTimeSchema,
});

export const EvalDetailReplySchema = EvalSummaryReplySchema.extend({ results: z.array(EvalResultReplySchema) });

export const QueuesReplySchema = z.strictObject({
  queues: z.array(
    z.strictObject({
      queue: QueueNameSchema,
      waiting: z.number().int(),
      active: z.number().int(),
      delayed: z.number().int(),
      completed: z.number().int(),
      failed: z.number().int(),
      deadLettered: z.number().int().describe("Jobs in the queue's dead-letter queue"),
    }),
  ),
});

export const FailedJobsReplySchema = z.strictObject({
  queue: QueueNameSchema,
  items: z.array(
    z.strictObject({ id: z.string(), name: z.string(), reason: z.string(), attemptsMade: z.number().int() }),
  ),
});
