import { z } from 'zod';
import { GroupRewardSchema, type GroupReward } from './reward';
import { EntityIdSchema } from './run-config';
import { EpisodeTrajectorySchema, InfraErrorCodeSchema } from './rollout';
import { TextIdSchema, TextPathSchema } from './text';

/**
 * The job contract of FATHOM's services: every queue, every job and event name, and the one map from a name to
 * its payload schema. Producers and consumers compile against the same types and validate with the same
 * schemas on both sides (libs/queue does both).
 */

/**
 * Work queues: the GRPO pipeline in order (rollout → reward → learn), then evaluations requested through the admin
 * API. Each has a dead-letter queue (`deadLetterQueueOf`).
 */
export const QUEUE_NAMES = ['rollout', 'reward', 'learn', 'eval'] as const;
export const QueueNameSchema = z.enum(QUEUE_NAMES);
export type QueueName = z.infer<typeof QueueNameSchema>;

/** Where a queue's jobs go when they failed for good (malformed payload, or every attempt used). */
export function deadLetterQueueOf(queue: QueueName): string {
  return `${queue}-dead`;
}

/** The id of a job's dead letter. Prefixed because BullMQ refuses all-digit custom ids (an auto-id job's id). */
export function deadLetterIdOf(jobId: string): string {
  return `dl-${jobId}`;
}

/** Jobs: each is delivered to exactly one consumer of its queue. */
export const JOB_QUEUE = {
  'rollout.group': 'rollout',
  'reward.group': 'reward',
  'learn.group': 'learn',
  'eval.run': 'eval',
} as const satisfies Record<string, QueueName>;
export type JobName = keyof typeof JOB_QUEUE;
export const JOB_NAMES = Object.keys(JOB_QUEUE) as JobName[];

/**
 * Events: broadcast to every subscriber (e.g. every rollout worker), not queued. A subscriber that was disconnected
 * misses what was published meanwhile, so one that must not miss a change looks the state up again when its
 * subscription is back (`SubscribeOptions.onResubscribed`).
 */
export const EVENT_NAMES = ['policy.updated', 'job.dead_lettered', 'run.stopping', 'run.ended'] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/** The names of the jobs routed to `queue`. */
export function jobNamesOf(queue: QueueName): JobName[] {
  return JOB_NAMES.filter((name) => JOB_QUEUE[name] === queue);
}

const step = z.number().int().min(0);
const policyVersion = z.number().int().min(0);

/** What every group job carries: which group of which step of which run, and the policy that samples it. */
const GroupKeySchema = z.strictObject({
  runId: EntityIdSchema,
  step,
  groupId: EntityIdSchema,
  /** Reaches Episode rows: well-formed text, no NUL (`TextIdSchema`). */
  taskId: TextIdSchema,
  /** The policy version that samples (or sampled) the group. */
  policyVersion,
});

/** rollout.group: sample G episodes of one task with one policy version. */
export const RolloutGroupJobSchema = GroupKeySchema.extend({
  /** Episodes to sample (the group size). */
  G: z.number().int().min(1).max(1024),
  /** The group's sampling seed, chosen by the learner, so a retried or re-run group samples the same episodes. */
  seed: z.number().int().min(0).max(0xffffffff),
});
export type RolloutGroupJob = z.infer<typeof RolloutGroupJobSchema>;

/** A sample whose infra-error retries were used up: never scored, never trained on, counted in step metrics. */
export const InfraFailureSchema = z.strictObject({
  sampleIndex: z.number().int().min(0),
  attempt: z.number().int().min(0),
  code: InfraErrorCodeSchema,
  message: z.string(),
});
export type InfraFailure = z.infer<typeof InfraFailureSchema>;

/**
 * What a rollout worker produced for one group: the scorable trajectories (every status but infra_error), the
 * trajectories whose infra-error retries ran out (`excluded`), and every infra failure on the way (retried ones
 * too). Sample indexes of `trajectories` and `excluded` together are exactly 0..G-1.
 */
const GroupRolloutFields = {
  trajectories: z.array(EpisodeTrajectorySchema).max(1024),
  excluded: z.array(EpisodeTrajectorySchema).max(1024),
  infraFailures: z.array(InfraFailureSchema).max(8192),
  /** Wall time of the group's episodes on the worker, ms. */
  generationMs: z.number().nonnegative(),
  /** Time the worker spent fetching and loading the policy version's weights for this group (0 when cached), ms. */
  weightSyncMs: z.number().nonnegative(),
};

/** Sample indexes must be exactly 0..n-1, each once, so (runId, step, groupId, sampleIndex) keys never collide. */
function checkSampleIndexes(samples: readonly { sampleIndex: number }[], ctx: z.RefinementCtx, path: string): void {
  const seen = new Set(samples.map((s) => s.sampleIndex));
  const complete = seen.size === samples.length && samples.every((s) => s.sampleIndex < samples.length);
  if (!complete) {
    ctx.addIssue({
      code: 'custom',
      path: [path],
      message: `sampleIndex values must be 0..${samples.length - 1}, each once`,
    });
  }
}

function checkGroup(
  job: { trajectories: { sampleIndex: number; status: string }[]; excluded: { sampleIndex: number; status: string }[] },
  ctx: z.RefinementCtx,
): void {
  if (job.trajectories.length + job.excluded.length === 0)
    ctx.addIssue({ code: 'custom', path: ['trajectories'], message: 'a group needs at least one trajectory' });
  checkSampleIndexes([...job.trajectories, ...job.excluded], ctx, 'trajectories');
  job.trajectories.forEach((t, i) => {
    if (t.status === 'infra_error')
      ctx.addIssue({
        code: 'custom',
        path: ['trajectories', i, 'status'],
        message: 'infra_error samples go in excluded',
      });
  });
  job.excluded.forEach((t, i) => {
    if (t.status !== 'infra_error')
      ctx.addIssue({
        code: 'custom',
        path: ['excluded', i, 'status'],
        message: `excluded samples must be infra_error, got ${t.status}`,
      });
  });
}

/**
 * reward.group: the G trajectories of one group, to be scored: exactly what the episode loop recorded
 * (`EpisodeTrajectorySchema`), token ids, masks and recursion tree included.
 */
export const RewardGroupJobSchema = GroupKeySchema.extend(GroupRolloutFields).superRefine(checkGroup);
export type RewardGroupJob = z.infer<typeof RewardGroupJobSchema>;

/**
 * One group's samples as the episode loop produced them (libs/rlm `EpisodeRunner.runGroup`): a reward.group job
 * without its keys and timings, and the base of `StepGroup`.
 */
export type GroupRollout = Pick<RewardGroupJob, 'taskId' | 'trajectories' | 'excluded' | 'infraFailures'>;

/**
 * learn.group: a group's score. Its trajectories are not copied into it: they stay in the group's reward.group job
 * (same job id), which the queues keep until a checkpoint covers the step, and the learner joins the two
 * (`scoredGroupOf`). `reward.rewards[i]` and `reward.results[i]` score the reward job's `trajectories[i]`.
 */
export const LearnGroupJobSchema = GroupKeySchema.extend({
  /** The group's score; null exactly when no trajectory was scorable (every sample's retries ran out). */
  reward: GroupRewardSchema.nullable(),
  /** Wall time of scoring the group, ms. */
  scoringMs: z.number().nonnegative(),
});
export type LearnGroupJob = z.infer<typeof LearnGroupJobSchema>;

/**
 * One prompt's group as the learner trains on it (token-in, token-out: the exact ids, log-probs and masks the worker
 * recorded), whichever way it was collected: in the services, a reward.group job joined with its learn.group score
 * (`scoredGroupOf`); in process, `collectGroups` of `@fathom/training`. Also what `rollouts/step-N.jsonl` stores, one
 * group a line. `rewards` and `results` score `trajectories`, in the same order (empty when none is scorable).
 */
export interface StepGroup extends GroupRollout, Pick<GroupReward, 'rewards' | 'results'> {
  /** The group id (`s<step>-g<i>`, `groupId`): unique in its step. */
  groupId: string;
  /** The version the group was requested with; every trajectory must report the same (weight-sync check). */
  claimedVersion: number;
}

/**
 * Joins a group's rollout (its reward.group job) with its score (its learn.group job). Throws an Error naming the
 * problem when they are not of the same group, or when the score does not have exactly one reward and one result per
 * scorable trajectory (null exactly when none is scorable).
 */
export function scoredGroupOf(rollout: RewardGroupJob, score: LearnGroupJob): StepGroup {
  for (const key of ['runId', 'step', 'groupId', 'taskId', 'policyVersion'] as const)
    if (rollout[key] !== score[key])
      throw new Error(
        `the score of group ${score.groupId} is not its rollout's: ${key} ${score[key]} ≠ ${rollout[key]}`,
      );
  const scorable = rollout.trajectories.length;
  const { reward } = score;
  if (reward === null ? scorable > 0 : reward.rewards.length !== scorable || reward.results.length !== scorable)
    throw new Error(
      `group ${score.groupId} has ${scorable} scorable trajectories but its score has ` +
        (reward === null ? 'no reward' : `${reward.rewards.length} rewards and ${reward.results.length} results`),
    );
  return {
    groupId: rollout.groupId,
    taskId: rollout.taskId,
    claimedVersion: rollout.policyVersion,
    trajectories: rollout.trajectories,
    rewards: reward?.rewards ?? [],
    results: reward?.results ?? [],
    excluded: rollout.excluded,
    infraFailures: rollout.infraFailures,
  };
}

/** eval.run: evaluate one checkpoint on one split and record EvalResult rows under `evalId`. */
export const EvalRunJobSchema = z.strictObject({
  evalId: EntityIdSchema,
  /** A checkpoint folder, or "default" for the shipped model. */
  checkpoint: TextPathSchema,
  split: z.enum(['eval', 'heldout']),
  /** The run the checkpoint belongs to, when it came from one. */
  runId: EntityIdSchema.nullable(),
  /** Evaluate only the first n tasks of the split; null for all. */
  limit: z.number().int().positive().nullable(),
  seed: z.number().int().min(0),
});
export type EvalRunJob = z.infer<typeof EvalRunJobSchema>;

/** policy.updated: the learner published a new policy version; workers drop older cached weights. */
export const PolicyUpdatedEventSchema = z.strictObject({
  runId: EntityIdSchema,
  policyVersion,
  /** The learner step whose update produced this version. */
  step,
  /** Where the version's checkpoint was written, when it was. */
  checkpointPath: z.string().min(1).nullable(),
});
export type PolicyUpdatedEvent = z.infer<typeof PolicyUpdatedEventSchema>;

/** job.dead_lettered: a job was written to its queue's dead-letter queue (the letter itself says why). */
export const JobDeadLetteredEventSchema = z.strictObject({
  queue: QueueNameSchema,
  jobId: z.string().min(1),
});
export type JobDeadLetteredEvent = z.infer<typeof JobDeadLetteredEventSchema>;

/** run.stopping: a stop of the run was requested (its status is `stopping`); the learner abandons its step. */
export const RunStoppingEventSchema = z.strictObject({ runId: EntityIdSchema });
export type RunStoppingEvent = z.infer<typeof RunStoppingEventSchema>;

/**
 * run.ended: the learner set the run's status to one that trains no more until a resume; the services that remember
 * a run as not ended (`EndedRuns`) forget it.
 */
export const RunEndedEventSchema = z.strictObject({
  runId: EntityIdSchema,
  status: z.enum(['stopped', 'completed', 'failed']),
});
export type RunEndedEvent = z.infer<typeof RunEndedEventSchema>;

/** THE map from every job and event name to its payload schema. */
export const MESSAGE_SCHEMAS = {
  'rollout.group': RolloutGroupJobSchema,
  'reward.group': RewardGroupJobSchema,
  'learn.group': LearnGroupJobSchema,
  'eval.run': EvalRunJobSchema,
  'policy.updated': PolicyUpdatedEventSchema,
  'job.dead_lettered': JobDeadLetteredEventSchema,
  'run.stopping': RunStoppingEventSchema,
  'run.ended': RunEndedEventSchema,
} as const satisfies Record<JobName | EventName, z.ZodType>;

export type MessageName = keyof typeof MESSAGE_SCHEMAS;
/** The payload type of a job or event name. */
export type MessagePayload<N extends MessageName> = z.infer<(typeof MESSAGE_SCHEMAS)[N]>;
export type JobPayload<N extends JobName> = MessagePayload<N>;
export type EventPayload<N extends EventName> = MessagePayload<N>;

/**
 * The id of group `index` of `step`: `s<step>-g<index>`, made here and nowhere else. It is the `groupId` of the
 * group's jobs (so an entity id: no `:`, see `EntityIdSchema`) and of its StepGroup in step records and
 * rollouts/step-N.jsonl, the same whichever collector sampled the group. It carries the step because with
 * maxStaleness ≥ 1 groups of two steps are held together; the task travels beside it as `taskId`.
 */
export function groupId(step: number, index: number): string {
  return `s${step}-g${index}`;
}

/**
 * The job id of a group job: `${runId}:${step}:${groupId}`. The same group always gets the same id, so an
 * enqueue repeated by a retried producer never creates a second job.
 */
export function groupJobId(key: { runId: string; step: number; groupId: string }): string {
  return `${key.runId}:${key.step}:${key.groupId}`;
}

/** The deterministic id of any job: the group key for group jobs, the eval id for eval.run. */
export function jobIdOf<N extends JobName>(name: N, payload: JobPayload<N>): string {
  if (name === 'eval.run') return `eval-${(payload as EvalRunJob).evalId}`;
  return groupJobId(payload as RolloutGroupJob);
}

/** Delivery options of a queue's jobs. Transports translate these; nothing else sets job options. */
export interface QueueJobOptions {
  /** Tries in total, the first included. */
  attempts: number;
  /** Exponential backoff: the n-th retry waits backoffMs · 2^(n-1). */
  backoffMs: number;
  /**
   * How long finished jobs are kept (seconds). A kept job still blocks a new job with its id, so this is the
   * window in which a repeated enqueue is recognised as a duplicate.
   */
  keepCompletedS: number;
  keepFailedS: number;
}

/** Job options in one place. Rollouts are costly to redo and fail mostly on infrastructure, so they retry most. */
export const JOB_OPTIONS: Readonly<Record<QueueName, QueueJobOptions>> = {
  rollout: { attempts: 5, backoffMs: 2000, keepCompletedS: 24 * 3600, keepFailedS: 7 * 24 * 3600 },
  reward: { attempts: 3, backoffMs: 1000, keepCompletedS: 24 * 3600, keepFailedS: 7 * 24 * 3600 },
  learn: { attempts: 3, backoffMs: 1000, keepCompletedS: 24 * 3600, keepFailedS: 7 * 24 * 3600 },
  eval: { attempts: 2, backoffMs: 5000, keepCompletedS: 7 * 24 * 3600, keepFailedS: 7 * 24 * 3600 },
};

/** What a dead-letter queue holds: the original job, untouched, and why it was given up. */
export const DeadLetterSchema = z.strictObject({
  queue: QueueNameSchema,
  jobId: z.string(),
  name: z.string(),
  /** The payload exactly as received (possibly malformed). */
  data: z.unknown(),
  reason: z.string(),
  /**
   * "malformed": the payload failed validation; "unknown_job": the queue carries no job of that name;
   * "rejected": the handler declared the failure permanent (all three are never retried);
   * "exhausted": every attempt failed with a transient error; "stalled": the queue failed it by itself, its
   * workers having died or hung holding it too often.
   */
  kind: z.enum(['malformed', 'unknown_job', 'rejected', 'exhausted', 'stalled']),
  attemptsMade: z.number().int().min(0),
  failedAt: z.string(),
});
export type DeadLetter = z.infer<typeof DeadLetterSchema>;
