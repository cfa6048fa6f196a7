/**
 * Where a GRPO step's time goes: runs `--steps` steps of a GRPO config in-process (real sandbox, the config's
 * checkpoint) and prints one JSON line per step with the seconds of each part, next to the step's compute floor
 * from kernel speeds measured first, in the same process, on the same weights.
 *
 *   node --no-node-snapshot --import tsx bench/grpo/grpo.bench.ts [--config configs/grpo/default.json] [--steps 3]
 *        [--tasks 64] [--seed 1] [--threads N]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { threadsOption } from '../options';
import { loadCheckpoint, ModelGraphs } from '@fathom/model';
import { generateTasks } from '@fathom/tasks';
import { grpoTrainConfigOfRun, loadRunConfig, runCheckpointDir, runGrpo, type GrpoStepRecord } from '@fathom/training';
import { median } from '@fathom/contracts';

const opts = new Command()
  .option('--config <file>', 'a GRPO config (fathom train)', 'configs/grpo/default.json')
  .option('--steps <n>', 'steps to run', (v) => Number(v), 3)
  .option('--tasks <n>', 'train tasks generated for the run', (v) => Number(v), 64)
  .option('--seed <n>', 'task seed', (v) => Number(v), 1)
  .addOption(threadsOption())
  .parse()
  .opts<{ config: string; steps: number; tasks: number; seed: number; threads: number }>();
const runtime = { intraOpThreads: opts.threads };

const round = (x: number, d = 2) => Number(x.toFixed(d));
const emit = (o: Record<string, unknown>) => console.log(JSON.stringify({ ...o, load1: round(loadavg()[0]) }));
const tokens = (n: number, seed: number) => Array.from({ length: n }, (_, i) => (i * 31 + seed * 7) % 256);

async function timed(runs: number, fn: () => Promise<unknown>): Promise<number> {
  await fn(); // compiles the graph
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return median(ms);
}

const out = await mkdtemp(join(tmpdir(), 'fathom-bench-grpo-'));
try {
  const config = await grpoTrainConfigOfRun(
    await loadRunConfig(opts.config, [`steps=${opts.steps}`]),
    join(out, 'run'),
  );
  const { config: model, params } = await loadCheckpoint(runCheckpointDir({ model: config.model }));

  // Kernel speeds, each the rate the step's work could run at if nothing but that kernel ran.
  const graphs = new ModelGraphs(model, { kind: 'full' }, runtime);
  const decoder = graphs.decoder(params);
  const rows = config.batchSize * config.grpo.groupSize; // every live episode of a step in one batch
  const decodeAfter = (prompt: number) =>
    timed(3, async () => {
      const { session } = await decoder.start([{ tokens: tokens(prompt, 1), rows }]);
      for (let s = 0; s < 32; s++) await session.step(tokens(rows, s));
      session.close();
    });
  const decodeMs = await decodeAfter(256);
  // Later turns attend over 1–2K positions, and reading that cache is most of a step's cost.
  const decodeLongMs = await decodeAfter(1024);
  const prefillMs = await timed(3, async () =>
    (await decoder.start([{ tokens: tokens(1024, 2), rows: 1 }])).session.close(),
  );
  const length = Math.min(config.episode.maxEpisodeTokens, 1024);
  const batch = { batch: config.microBatchSize, length, ids: tokens(config.microBatchSize * length, 3) };
  const trainBatch = { ...batch, targets: batch.ids };
  const weights = new Float32Array(batch.batch * length).fill(-1e-3);
  const trainMs = await timed(3, () => graphs.trainStep(params, trainBatch, weights));
  const forwardMs = await timed(3, () => graphs.logprobs(params, trainBatch));
  await decoder.release();
  await graphs.release();
  const rates = {
    // Decode steps after a 256-token prompt: the cost of reading the cache is included.
    decode_tokens_per_s: round((32 * rows) / (decodeMs / 1e3), 0),
    decode_1024_tokens_per_s: round((32 * rows) / (decodeLongMs / 1e3), 0),
    prefill_tokens_per_s: round(1024 / (prefillMs / 1e3), 0),
    train_tokens_per_s: round((batch.batch * length) / (trainMs / 1e3), 0),
    forward_tokens_per_s: round((batch.batch * length) / (forwardMs / 1e3), 0),
  };
  emit({ bench: 'grpo_kernels', rows, train_shape: [batch.batch, length], ...rates });

  const tasks = [...generateTasks({ split: 'train', n: opts.tasks, seed: opts.seed })];
  const records: GrpoStepRecord[] = [];
  await runGrpo(config, { tasks, runtime, observer: { onStep: (r) => void records.push(r) } });
  for (const r of records) {
    const t = r.time as Record<string, number>;
    const sampled = r.sampled_tokens as number;
    const learned = r.learner_tokens ?? 0;
    // The floor: sampled tokens at batched decode speed, and the update's real tokens through one train step
    // (plus one forward for the reference when β > 0). Prefill, sandbox and scoring are left out of it.
    const floor = {
      sampling_s: sampled / rates.decode_tokens_per_s,
      update_s: learned / rates.train_tokens_per_s + (config.grpo.beta > 0 ? learned / rates.forward_tokens_per_s : 0),
    };
    const floorS = floor.sampling_s + floor.update_s;
    // Overlapped rollouts (maxStaleness ≥ 1) ran during the previous update: only the wait for them is the step's.
    const parts = ['rollout_wait_s', 'update_s'];
    emit({
      bench: 'grpo_step',
      step: r.step,
      step_s: round(t.step_s),
      generation_s: round(t.generation_s),
      rollout_wait_s: round(t.rollout_wait_s),
      scoring_s: round(t.scoring_s),
      update_s: round(t.update_s),
      update_logprobs_s: round(t.update_logprobs_s ?? 0),
      update_train_s: round(t.update_train_s ?? 0),
      update_optimizer_s: round(t.update_optimizer_s ?? 0),
      weight_sync_s: round(t.weight_sync_s),
      // Records, checkpoints and anything else between the timed parts.
      other_s: round(t.step_s - parts.reduce((s, k) => s + (t[k] ?? 0), 0)),
      sampled_tokens: sampled,
      learner_tokens: learned,
      learner_padded_tokens: r.learner_padded_tokens ?? 0,
      learner_rss_mb: t.learner_rss_mb,
      floor_sampling_s: round(floor.sampling_s),
      floor_update_s: round(floor.update_s),
      floor_s: round(floorS),
      over_floor: round(t.step_s / floorS),
    });
  }
} finally {
  await rm(out, { recursive: true, force: true });
}
