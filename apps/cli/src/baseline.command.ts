import { writeFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { SPLITS, type Split, type Task } from '@fathom/contracts';
import { DEFAULT_MAX_TOKENS, DEFAULT_MIN_TOKENS, generateTasks, readTasksJsonl } from '@fathom/tasks';
import { RegexBaselineAccumulator, formatRegexBaseline } from './baseline/regex-report';
import { integer } from './args';

interface RegexFlags {
  split: Split;
  n: number;
  seed: number;
  minTokens: number;
  maxTokens: number;
  data?: string;
  out?: string;
}

async function regex(flags: RegexFlags): Promise<void> {
  const tasks: AsyncIterable<Task> | Iterable<Task> =
    flags.data === undefined
      ? generateTasks({
          split: flags.split,
          n: flags.n,
          seed: flags.seed,
          minTokens: flags.minTokens,
          maxTokens: flags.maxTokens,
        })
      : readTasksJsonl(flags.data);
  const acc = new RegexBaselineAccumulator();
  const started = performance.now();
  for await (const task of tasks) acc.add(task);
  const report = acc.result();
  const source = flags.data ?? `${flags.split} split, n ${flags.n}, seed ${flags.seed}`;
  console.log(formatRegexBaseline(`regex baseline on ${source}`, report));
  console.error(`ran in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (flags.out !== undefined) {
    const body = flags.data === undefined ? { split: flags.split, n: flags.n, seed: flags.seed } : { data: flags.data };
    await writeFile(flags.out, `${JSON.stringify({ baseline: 'regex', ...body, ...report }, null, 2)}\n`);
  }
}

/** `fathom baseline …`: no-model baselines on generated splits or dataset files (docs/DATASETS.md). */
export function baselineCommand(): Command {
  const baseline = new Command('baseline').description('No-model baselines: how far a program without a model gets.');
  baseline
    .command('regex')
    .description(
      'Run the regex-only baseline (written against train phrasings and frames) and print accuracy per type and per ' +
        'phrasing family (seen = train family, unseen = heldout family).',
    )
    .addOption(new Option('--split <split>', 'split to generate').choices(SPLITS).default('heldout'))
    .option('--n <n>', 'number of tasks to generate', integer('--n'), 200)
    .option('--seed <seed>', 'generation seed', integer('--seed'), 0)
    .option('--min-tokens <tokens>', 'shortest context', integer('--min-tokens'), DEFAULT_MIN_TOKENS)
    .option('--max-tokens <tokens>', 'longest context', integer('--max-tokens'), DEFAULT_MAX_TOKENS)
    .option('--data <file>', 'score a JSONL dataset instead of generating one')
    .option('--out <file>', 'also write the report as JSON')
    .action(regex);
  return baseline;
}
