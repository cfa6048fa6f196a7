import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SingleBar } from 'cli-progress';
import { Command, InvalidArgumentError } from 'commander';
import { OpenEnvSandbox } from '@fathom/sandbox';
import {
  defaultRunFolder,
  grpoTrainConfigOfRun,
  loadRunConfig,
  replayStep,
  runGrpo,
  runTasks,
  type GrpoObserver,
} from '@fathom/training';
import { collect, flagOverrides, number, webSocketUrl } from './args';

/** The convenience flags of `fathom train` (docs/GRPO.md) and the run-config path each one sets. */
const TRAIN_FLAG_PATHS = {
  steps: 'steps',
  batchSize: 'batchSize',
  groupSize: 'grpo.groupSize',
  maxStaleness: 'grpo.maxStaleness',
  lr: 'optimizer.lr',
  seed: 'seed',
  checkpoint: 'model.checkpoint',
  tasks: 'data.trainFile',
} as const;

type TrainFlags = Partial<Record<keyof typeof TRAIN_FLAG_PATHS, string | number>> & {
  config?: string;
  set: string[];
  out?: string;
  envUrl?: string;
  resume: boolean;
  progress: boolean;
};

const fixed = (x: unknown, digits: number) => (typeof x === 'number' ? x.toFixed(digits) : '-');

/** A progress bar on stderr: steps, with the last step's reward, loss and zero-std fraction. */
function progressBar(): GrpoObserver & { stop(): void } {
  const bar = new SingleBar({
    stream: process.stderr,
    format:
      'train [{bar}] {value}/{total} | reward {reward} | loss {loss} | kl {kl} | zero-std {zero} | ' +
      'groups {groups} | v{version} | {duration}s',
    hideCursor: true,
  });
  return {
    onStart: ({ startStep, steps, tasks, resumedFrom }) => {
      console.error(`train: ${tasks} tasks` + (resumedFrom ? `; resuming from ${resumedFrom}` : ''));
      bar.start(steps, startStep, { reward: '-', loss: '-', kl: '-', zero: '-', groups: '-', version: '-' });
    },
    onStep: (r) => {
      const groups = r.groups as { submitted: number; trainable: number };
      bar.update(r.step, {
        reward: fixed(r.reward, 3),
        loss: fixed(r.loss, 4),
        kl: fixed(r.kl, 4),
        zero: fixed(r.frac_reward_zero_std, 2),
        groups: `${groups.trainable}/${groups.submitted}`,
        version: r.policy_version,
      });
    },
    stop: () => bar.stop(),
  };
}

/** A run folder, or the id of a service run whose folder is `<runsDir>/<id>` (the learner's RUNS_DIR). */
function runFolder(run: string, runsDir: string): string {
  if (existsSync(join(run, 'config.json'))) return run;
  const folder = join(runsDir, run);
  if (existsSync(join(folder, 'config.json'))) return folder;
  throw new InvalidArgumentError(`--run ${run}: neither a run folder nor a run id under ${runsDir}`);
}

/**
 * `fathom replay` (also `fathom train replay`): re-runs the update of step N of a run — `fathom train`'s or the
 * learner-service's — from its stored trajectories, so a bad step can be reproduced and debugged offline.
 */
export function replayCommand(): Command {
  return new Command('replay')
    .description("Re-run step N's GRPO update from the run's stored trajectories and print its metrics")
    .requiredOption('--run <dir|id>', 'a run folder (config.json, rollouts/, checkpoints/) or a service run id')
    .option('--runs-dir <dir>', "where service runs' folders are (the learner's RUNS_DIR)", 'out/runs')
    .requiredOption('--step <n>', 'the step to replay', number('--step'))
    .action(async (flags: { run: string; runsDir: string; step: number }) => {
      const result = await replayStep(runFolder(flags.run, flags.runsDir), flags.step);
      console.log(
        JSON.stringify({
          step: result.step,
          from_checkpoint: result.fromCheckpoint,
          replayed_steps: result.replayedSteps,
          trainable: result.selection.trainable,
          skipped: result.selection.skipped,
          replayed: result.replayed,
          recorded: result.recorded,
          max_abs_diff: result.maxAbsDiff,
        }),
      );
    });
}

/**
 * `fathom train --config FILE`: GRPO with the environment in the loop, in one process (docs/GRPO.md). FILE is a run
 * config, the JSON POST /runs takes; the run folder is `--out`, or `out/grpo/<FILE's name>`.
 */
export function trainCommand(): Command {
  return new Command('train')
    .description('GRPO training with real sandbox episodes in the loop; metrics JSONL, checkpoints, --resume.')
    .option('--config <file>', 'run config JSON, as POST /runs takes (see configs/grpo/default.json, docs/GRPO.md)')
    .option(
      '--set <key=value>',
      'override any run-config value by its dotted path, e.g. rollout.maxTurns=8 (repeatable; after the flags below)',
      collect,
      [],
    )
    .option('--steps <n>', 'override: GRPO steps', number('--steps'))
    .option('--batch-size <n>', 'override: prompts per step (B)', number('--batch-size'))
    .option('--group-size <n>', 'override: episodes per prompt (G)', number('--group-size'))
    .option(
      '--max-staleness <n>',
      'override: policy versions a group may lag (0 = synchronous)',
      number('--max-staleness'),
    )
    .option('--lr <lr>', 'override: learning rate', number('--lr'))
    .option('--seed <n>', 'override: seed', number('--seed'))
    .option('--checkpoint <dir>', 'override: the SFT checkpoint to start from')
    .option('--tasks <file>', 'override: train tasks JSONL (data.trainFile)')
    .option('--out <dir>', "run folder (default: out/grpo/<the config file's name>)")
    .option(
      '--env-url <url>',
      'run every episode in the OpenEnv environment at this WebSocket URL (ws://host:port/ws), not a local sandbox',
      webSocketUrl('--env-url'),
    )
    .option('--resume', 'continue from the latest checkpoint in the run folder', false)
    .option('--no-progress', 'no progress bar')
    .addCommand(replayCommand())
    .action(async (flags: TrainFlags) => {
      const { config: file, out, resume, progress, envUrl } = flags;
      if (file === undefined) throw new InvalidArgumentError('train needs --config <file>');
      const run = await loadRunConfig(file, [...flagOverrides(flags, TRAIN_FLAG_PATHS), ...flags.set]);
      const config = await grpoTrainConfigOfRun(run, out ?? defaultRunFolder(file));
      const sandbox = envUrl === undefined ? undefined : new OpenEnvSandbox(envUrl);
      // An environment that cannot be reached would fail every episode, and the run would train on nothing.
      await sandbox?.check();
      const bar = progress ? progressBar() : undefined;
      try {
        const result = await runGrpo(config, { resume, observer: bar, tasks: await runTasks(run), sandbox });
        bar?.stop();
        console.log(
          JSON.stringify({
            out: config.out,
            final: result.finalDir,
            checkpoint: result.checkpointDir,
            step: result.last?.step ?? null,
            policy_version: result.policyVersion,
            reward: result.last?.reward ?? null,
            loss: result.last?.loss ?? null,
          }),
        );
      } finally {
        bar?.stop();
        await sandbox?.close();
      }
    });
}
