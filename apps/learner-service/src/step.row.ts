import { meanStd, rewardComponentNames } from '@fathom/contracts';
import type { StepRecord } from '@fathom/persistence';
import type { StepGroup } from '@fathom/contracts';
import type { GrpoStepRecord } from '@fathom/training';

const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : 0);

/**
 * The Step row of a step: the headline columns, the reward components over every scored episode of the step, the
 * timings, and the whole metrics.jsonl record in `metrics` (so nothing `fathom train` logs is missing from
 * Postgres). A step with no update has loss, KL and clip ratio 0, and says so in `metrics.updated`.
 */
export function stepRowOf(runId: string, record: GrpoStepRecord, groups: readonly StepGroup[]): StepRecord {
  const results = groups.flatMap((g) => g.results);
  const time = record.time as Record<string, unknown>;
  const groupCounts = record.groups as { submitted: number; trainable: number };
  return {
    runId,
    step: record.step,
    policyVersion: record.policy_version,
    loss: num(record.loss),
    kl: num(record.kl),
    clipRatio: num(record.clip_ratio),
    rewardMean: num(record.reward),
    rewardStd: num(record.reward_std),
    fracRewardZeroStd: num(record.frac_reward_zero_std),
    groupsSubmitted: groupCounts.submitted,
    groupsTrainable: groupCounts.trainable,
    tokens: num(record.sampled_tokens),
    timings: Object.fromEntries(Object.entries(time).filter(([, v]) => typeof v === 'number')) as Record<
      string,
      number
    >,
    metrics: JSON.parse(JSON.stringify(record)),
    components: rewardComponentNames(results).map((component) => ({
      component,
      ...meanStd(results.map((r) => r.components[component])),
    })),
  };
}
