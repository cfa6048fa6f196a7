import { Command, InvalidArgumentError } from 'commander';
import { SingleBar } from 'cli-progress';
import {
  loadReaderSftConfig,
  loadSftConfig,
  runReaderSft,
  runSft,
  type ReaderSftConfig,
  type SftObserver,
} from '@fathom/training';
import { collect, flagOverrides, number } from './args';

/** The convenience flags of `fathom sft` (docs/SFT.md) and the config path each one sets. */
const SFT_FLAG_PATHS = {
  steps: 'steps',
  lr: 'optimizer.lr',
  out: 'out',
  batchSize: 'batchSize',
  seqLen: 'seqLen',
  seed: 'seed',
} as const;

type SftFlags = Partial<Record<keyof typeof SFT_FLAG_PATHS, string | number>> & {
  config: string;
  set: string[];
  resume: boolean;
  progress: boolean;
};

/** A progress bar on stderr (stdout stays for the final JSON summary). */
function progressBar(): SftObserver & { stop(): void } {
  const bar = new SingleBar({
    stream: process.stderr,
    format: 'sft [{bar}] {value}/{total} | loss {loss} | lr {lr} | {tps} tok/s | eval {eval} | {duration}s',
    hideCursor: true,
  });
  let evalLoss = '-';
  return {
    onStart: ({ startStep, steps, data, resumedFrom }) => {
      console.error(
        `sft: ${data.train.examples} train examples (${data.train.tasks} tasks, ${data.train.subcalls} sub-calls), ` +
          `${data.heldOut.examples} held out; dropped ${data.droppedTooLong} over seqLen ${data.seqLen}, ` +
          `${data.droppedNoTrainedTokens} without trained tokens` +
          (data.extractive + data.droppedNotExtractive > 0
            ? `; ${data.extractive} extractive reads, ${data.droppedNotExtractive} not a span of their chunk`
            : '') +
          (resumedFrom ? `; resuming from ${resumedFrom}` : ''),
      );
      bar.start(steps, startStep, { loss: '-', lr: '-', tps: '-', eval: evalLoss });
    },
    onStep: (r) =>
      bar.update(r.step, {
        loss: r.loss.toFixed(4),
        lr: r.lr.toExponential(2),
        tps: Math.round(r.tokens_per_s),
        eval: evalLoss,
      }),
    onEval: (r) => {
      evalLoss = r.eval_loss.toFixed(4);
      bar.update({ eval: evalLoss });
    },
    stop: () => bar.stop(),
  };
}

/** A reader's SFT (`"kind": "reader"`): a progress bar of its span loss and greedy eval reads, then a JSON summary. */
async function runReader(config: ReaderSftConfig, progress: boolean): Promise<void> {
  const bar = new SingleBar({
    stream: process.stderr,
    format: 'reader sft [{bar}] {value}/{total} | stage {stage} | span loss {loss} | eval reads {eval} | {duration}s',
    hideCursor: true,
  });
  let evalReads = '-';
  let result;
  try {
    result = await runReaderSft(
      config,
      progress
        ? {
            onStart: ({ steps }) => bar.start(steps, 0, { stage: 0, loss: '-', eval: evalReads }),
            onStep: (r) => bar.update(r.step, { stage: r.stage, loss: r.loss.toFixed(4), eval: evalReads }),
            onEval: (r) => {
              evalReads = `${(100 * r.accuracy).toFixed(1)}%`;
              bar.update({ eval: evalReads });
            },
          }
        : {},
    );
  } finally {
    if (progress) bar.stop();
  }
  console.log(
    JSON.stringify({
      out: config.out,
      final: result.finalDir,
      step: result.last?.step ?? null,
      loss: result.last?.loss ?? null,
      eval_accuracy: result.lastEval?.accuracy ?? null,
    }),
  );
}

/** `fathom sft --config FILE`: supervised fine-tuning to a checkpoint (docs/SFT.md). */
export function sftCommand(): Command {
  return new Command('sft')
    .description('Supervised fine-tuning on SFT conversations (loss on model tokens only); writes checkpoints.')
    .requiredOption('--config <file>', 'SFT config JSON (see configs/sft/default.json and docs/SFT.md)')
    .option(
      '--set <key=value>',
      'override any config value by its dotted path, e.g. optimizer.warmupSteps=10 (repeatable; after the flags below)',
      collect,
      [],
    )
    .option('--steps <n>', 'override: optimizer steps', number('--steps'))
    .option('--lr <lr>', 'override: peak learning rate', number('--lr'))
    .option('--out <dir>', 'override: run folder')
    .option('--batch-size <n>', 'override: conversations per step', number('--batch-size'))
    .option('--seq-len <n>', 'override: most tokens per conversation', number('--seq-len'))
    .option('--seed <n>', 'override: data seed', number('--seed'))
    .option('--resume', 'continue from the latest checkpoint in the run folder', false)
    .option('--no-progress', 'no progress bar')
    .action(async (flags: SftFlags) => {
      const { config: file, resume, progress } = flags;
      const overrides = [...flagOverrides(flags, SFT_FLAG_PATHS), ...flags.set];
      const reader = await loadReaderSftConfig(file, overrides);
      if (reader !== null) {
        if (resume) throw new InvalidArgumentError('--resume: a reader SFT run starts from its model each time');
        return runReader(reader, progress);
      }
      const config = await loadSftConfig(file, overrides);
      const bar = progress ? progressBar() : undefined;
      let result;
      try {
        result = await runSft(config, { resume, observer: bar });
      } finally {
        bar?.stop();
      }
      console.log(
        JSON.stringify({
          out: config.out,
          final: result.finalDir,
          checkpoint: result.checkpointDir,
          step: result.step,
          loss: result.last?.loss ?? null,
          eval_loss: result.lastEval?.eval_loss ?? null,
          kept: result.data.kept,
          dropped_too_long: result.data.droppedTooLong,
        }),
      );
    });
}
