import type { EvalRunJob } from '@fathom/contracts';
import type { EvalReport, EvalStats } from '@fathom/rlm';
import { DEFAULT_POLICY_DIR } from '@fathom/training';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evalRowsOf } from '@fathom/persistence';
import { evalCheckpointDir } from './eval.service';

const stats = (n: number, accuracy: number): EvalStats => ({
  n,
  scored: n,
  excluded: 0,
  accuracy,
  meanReward: 0.5,
  meanTokens: 100,
  meanCompletionTokens: 90,
  meanLlmCalls: 1,
  meanTurns: 2,
  callingShare: 1,
  meanMaxDepth: 1,
  maxDepth: 1,
  leafCalls: 1,
  leafScored: 1,
  leafCorrect: 1,
  leafAccuracy: 1,
  leafNoEvidence: 0,
  leafNoEvidenceAnswered: 0,
});

describe('eval jobs', () => {
  it('turn a report into one row overall, one per task type and one per context bucket', () => {
    const job: EvalRunJob = { evalId: 'e1', checkpoint: 'default', split: 'heldout', runId: null, limit: 3, seed: 0 };
    const report = {
      overall: stats(3, 2 / 3),
      byType: { niah: stats(2, 1), counting: stats(1, 0) },
      byBucket: { '4-16K': stats(3, 2 / 3) },
    } as unknown as EvalReport;
    const rows = evalRowsOf(job, report);
    expect(rows.map((r) => [r.taskType, r.lengthBucket, r.n])).toEqual([
      ['all', 'all', 3],
      ['niah', 'all', 2],
      ['counting', 'all', 1],
      ['all', '4-16K', 3],
    ]);
    expect(rows[0]).toMatchObject({ evalId: 'e1', checkpoint: 'default', split: 'heldout', runId: undefined });
  });

  it('resolve "default" to the shipped policy and relative folders from the working directory', () => {
    expect(evalCheckpointDir('default')).toBe(DEFAULT_POLICY_DIR);
    expect(evalCheckpointDir('out/x')).toBe(join(process.cwd(), 'out/x'));
    expect(evalCheckpointDir('/abs/y')).toBe('/abs/y');
  });
});
