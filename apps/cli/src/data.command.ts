import { Command, Option } from 'commander';
import { SingleBar } from 'cli-progress';
import { SPLITS, type Split } from '@fathom/contracts';
import {
  DEFAULT_MAX_TOKENS,
  DEFAULT_MIN_TOKENS,
  DEFAULT_SPLIT_SIZES,
  DatasetStatsAccumulator,
  generateTasks,
  parseMix,
  parseVariantRates,
  readTasksJsonl,
  validateTasksFile,
  writeTasksJsonl,
  type LengthDistribution,
} from '@fathom/tasks';
import { formatStats } from './data/format-stats';
import { integer, share } from './args';

interface GenerateFlags {
  split: Split;
  n?: number;
  seed: number;
  minTokens: number;
  maxTokens: number;
  lengthDist: LengthDistribution;
  mix?: string;
  variantRates?: string;
  inventedShare: number;
  inventedDistractorShare: number;
  out: string;
  progress: boolean;
}

async function generate(flags: GenerateFlags): Promise<void> {
  const n = flags.n ?? DEFAULT_SPLIT_SIZES[flags.split];
  // Options are checked (and bad ones rejected) before the output file is created.
  const tasks = generateTasks({
    split: flags.split,
    n,
    seed: flags.seed,
    minTokens: flags.minTokens,
    maxTokens: flags.maxTokens,
    lengthDistribution: flags.lengthDist,
    mix: flags.mix === undefined ? undefined : parseMix(flags.mix),
    variantRates: flags.variantRates === undefined ? undefined : parseVariantRates(flags.variantRates),
    inventedShare: flags.inventedShare,
    inventedDistractorShare: flags.inventedDistractorShare,
  });
  const bar = new SingleBar({
    stream: process.stderr,
    format: `generate ${flags.split} [{bar}] {value}/{total} tasks | {mb} MB of context | {duration}s`,
    hideCursor: true,
  });
  if (flags.progress) bar.start(n, 0, { mb: '0.0' });
  let chars = 0;
  const started = performance.now();
  const { count, bytes } = await writeTasksJsonl(flags.out, tasks, (task) => {
    chars += task.context.length;
    if (flags.progress) bar.increment({ mb: (chars / 1e6).toFixed(1) });
  });
  if (flags.progress) bar.stop();
  const seconds = (performance.now() - started) / 1000;
  console.error(
    `wrote ${count} ${flags.split} tasks to ${flags.out} (${(bytes / 1e6).toFixed(1)} MB, ` +
      `${(chars / 1e6).toFixed(1)} MB of context) in ${seconds.toFixed(1)} s`,
  );
}

async function stats(file: string, flags: { json: boolean }): Promise<void> {
  const acc = new DatasetStatsAccumulator();
  for await (const task of readTasksJsonl(file)) acc.add(task);
  const result = acc.result();
  console.log(flags.json ? JSON.stringify(result, null, 2) : formatStats(file, result));
}

async function validate(file: string, flags: { meta: boolean }): Promise<void> {
  const report = await validateTasksFile(file, { checkMeta: flags.meta }, (issue) =>
    console.log(`${file}:${issue.line}: ${issue.reasons.join('; ')}`),
  );
  const structured = flags.meta ? `, text checked against meta for ${report.structured}` : '';
  console.log(`${file}: ${report.lines} lines, ${report.valid} valid, ${report.issues.length} bad${structured}`);
  if (report.issues.length > 0) process.exitCode = 1;
}

/** `fathom data …`: generate, summarise and validate long-context QA datasets (docs/DATASETS.md). */
export function dataCommand(): Command {
  const data = new Command('data').description('Generate, summarise and validate long-context QA datasets (JSONL).');

  data
    .command('generate')
    .description('Generate a split of synthetic long-context QA tasks as JSONL.')
    .addOption(new Option('--split <split>', 'which split').choices(SPLITS).makeOptionMandatory())
    .option('--n <n>', 'number of tasks (default: 1000 train, 200 eval, 500 heldout)', integer('--n'))
    .option(
      '--seed <seed>',
      'random seed; the same arguments and seed give a byte-identical file',
      integer('--seed'),
      0,
    )
    .option(
      '--min-tokens <tokens>',
      'shortest context, in estimated tokens',
      integer('--min-tokens'),
      DEFAULT_MIN_TOKENS,
    )
    .option(
      '--max-tokens <tokens>',
      'longest context, in estimated tokens',
      integer('--max-tokens'),
      DEFAULT_MAX_TOKENS,
    )
    .addOption(
      new Option('--length-dist <dist>', 'how context lengths are drawn')
        .choices(['log-uniform', 'uniform'])
        .default('log-uniform'),
    )
    .option(
      '--mix <weights>',
      'task-type weights, e.g. niah=0.15,extractive=0.15,multi_needle=0.15,counting=0.1,tracking=0.25,multi_hop=0.2',
    )
    .option('--variant-rates <rates>', 'override distractor rates, e.g. niah.negation=0.8,counting.case_trap=0')
    .option(
      '--invented-share <share>',
      'share of tasks whose key-to-value sentences use invented frames (filler words between the key and the value) ' +
        "instead of their family's written ones",
      share('--invented-share'),
      0,
    )
    .option(
      '--invented-distractor-share <share>',
      'share of tasks whose negation, hypothetical, correction and past-state distractors are invented (filler ' +
        'words around the key and the wrong value, a meaning cue in varied places)',
      share('--invented-distractor-share'),
      0,
    )
    .requiredOption('--out <file>', 'output JSONL file')
    .option('--no-progress', 'do not draw the progress bar')
    .action(generate);

  data
    .command('stats')
    .description('Counts per type, context-token distribution, variant rates and answer statistics of a dataset.')
    .argument('<file>', 'JSONL dataset')
    .option('--json', 'print JSON instead of a table', false)
    .action(stats);

  data
    .command('validate')
    .description('Report every bad line of a dataset (exit code 1 if any); never stops at the first.')
    .argument('<file>', 'JSONL dataset')
    .option('--no-meta', 'skip checking generated tasks against their structured ground truth (meta)')
    .action(validate);

  return data;
}
