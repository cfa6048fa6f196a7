import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { SingleBar } from 'cli-progress';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  applySetOverrides,
  ConfigOverrideError,
  SPLITS,
  type SftReaderExample,
  type Split,
  type Task,
} from '@fathom/contracts';
import { createPrismaClient, DEFAULT_DATABASE_URL, EvalRepository, evalRowsOf } from '@fathom/persistence';
import {
  DEFAULT_PROMPT_STYLE,
  EpisodeConfigSchema,
  EVAL_BASELINES,
  evaluateReader,
  evaluateSuite,
  formatEvalTable,
  openAiLabel,
  type EvalBaseline,
  type EvalSuiteReport,
  type Policy,
  resolveEpisodeConfig,
  type ReaderEvalReport,
  type ReaderStats,
  DEFAULT_READER_WINDOW_CHARS,
  type EpisodeConfigInput,
  type OpenAiEndpoint,
  type OpenAiUsage,
  type PromptStyle,
} from '@fathom/rlm';
import { SandboxPool } from '@fathom/sandbox';
import { readReaderExamples } from '@fathom/training';
import {
  DEFAULT_SPLIT_SIZES,
  generateReaderExamples,
  generateTasks,
  oracleRead,
  READER_UNKNOWN_SHARE,
  readTasksJsonl,
  runRegexBaseline,
} from '@fathom/tasks';
import { collect, flagOverrides, integer, number, share, withEpisodeLimits } from './args';
import {
  formatUsage,
  loadLeafReader,
  loadRootPolicy,
  openAiSpec,
  subcallsInput,
  type EndpointPolicy,
  type RootPolicy,
} from './policy-source';

const seedList = (value: string): number[] => {
  const seeds = value.split(',').map((s) => integer('--seeds', 0)(s));
  if (new Set(seeds).size !== seeds.length) throw new InvalidArgumentError(`--seeds repeats a seed: "${value}"`);
  return seeds;
};

const baselineList = (value: string): EvalBaseline[] => {
  if (value.trim() === 'none') return [];
  const names = value.split(',').map((s) => s.trim());
  const unknown = names.filter((n) => !(EVAL_BASELINES as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw new InvalidArgumentError(
      `--baselines: unknown ${unknown.join(', ')}; choose from ${EVAL_BASELINES.join(', ')} or none`,
    );
  return names as EvalBaseline[];
};

interface EndpointUsage extends OpenAiUsage {
  role: 'policy' | 'subcalls';
  /** `openai:MODEL@URL`. */
  label: string;
}

interface EvalFlags {
  checkpoint?: string;
  policy?: OpenAiEndpoint;
  subcalls?: OpenAiEndpoint;
  readerCheckpoint?: string;
  readerWindow?: number;
  split: Split;
  tasks?: string;
  promptStyle?: PromptStyle['system'];
  n?: number;
  dataSeed: number;
  seeds: number[];
  baselines: EvalBaseline[];
  mode: 'greedy' | 'sampled';
  maxTurns?: number;
  maxTurnTokens?: number;
  maxEpisodeTokens?: number;
  set: string[];
  workers: number;
  concurrency: number;
  policyVersion: number;
  out?: string;
  episodes?: string;
  readers: number;
  readersMaxChunk: number;
  readersEvidenceOnly: boolean;
  readersKeyOnly: boolean;
  readersShared: boolean;
  readersRecall: boolean;
  readersFile?: string;
  readersUnknownShare?: number;
  extractiveReads: boolean;
  leafTemperature?: number;
  record: boolean;
  databaseUrl?: string;
  progress: boolean;
}

/** The convenience flags of `fathom eval`'s episode settings (docs/EVAL.md) and the `EpisodeConfig` key of each. */
const EPISODE_FLAG_PATHS = {
  maxTurns: 'maxTurns',
  maxTurnTokens: 'maxTokensPerTurn',
  maxEpisodeTokens: 'maxEpisodeTokens',
} as const;

/**
 * The episode config of the run with `promptStyle`: the sub-call flags, then the episode flags and `--set` as
 * dotted paths into `EpisodeConfigSchema`, which resolves the rest to its defaults.
 */
function episodeInput(flags: EvalFlags, promptStyle: PromptStyle): EpisodeConfigInput {
  try {
    return applySetOverrides(EpisodeConfigSchema, { promptStyle, ...subcallsInput(flags) }, [
      ...flagOverrides(flags, EPISODE_FLAG_PATHS),
      ...flags.set,
    ]);
  } catch (error) {
    if (error instanceof ConfigOverrideError) throw new InvalidArgumentError(`override ${error.message}`);
    throw error;
  }
}

async function loadTasks(flags: EvalFlags): Promise<Task[]> {
  const n = flags.n ?? DEFAULT_SPLIT_SIZES[flags.split];
  if (flags.tasks === undefined) return [...generateTasks({ split: flags.split, n, seed: flags.dataSeed })];
  const tasks: Task[] = [];
  for await (const task of readTasksJsonl(flags.tasks)) {
    if (tasks.length === n) break;
    tasks.push(task);
  }
  return tasks;
}

/** Leaf-read accuracy on `--readers` examples of the split, once per seed (sampled) or once (greedy). */
async function evaluateReaders(policy: Policy, sandbox: SandboxPool, flags: EvalFlags): Promise<ReaderEvalReport[]> {
  if (flags.readersFile !== undefined) {
    const examples = await readReaderExamples(flags.readersFile, flags.readers || undefined);
    return runReaders(policy, sandbox, flags, examples);
  }
  if (flags.readers === 0) return [];
  const examples = [
    ...generateReaderExamples({
      split: flags.split,
      n: flags.readers,
      seed: flags.dataSeed,
      maxChunkChars: flags.readersMaxChunk,
      evidenceShare: flags.readersEvidenceOnly ? 1 : 0,
      keyShare: flags.readersKeyOnly ? 1 : 0,
      sharedShare: flags.readersShared ? 1 : 0,
      recallShare: flags.readersRecall ? 1 : 0,
      unknownShare: flags.readersUnknownShare,
    }),
  ];
  return runReaders(policy, sandbox, flags, examples);
}

async function runReaders(
  policy: Policy,
  sandbox: SandboxPool,
  flags: EvalFlags,
  examples: readonly SftReaderExample[],
): Promise<ReaderEvalReport[]> {
  if (examples.length === 0) throw new Error(`${flags.readersFile}: no reader examples`);
  const reports: ReaderEvalReport[] = [];
  for (const seed of flags.mode === 'greedy' ? [0] : flags.seeds) {
    const report = await evaluateReader(policy, examples, {
      sandbox,
      mode: flags.mode,
      seed,
      extractive: flags.extractiveReads,
    });
    reports.push(report);
    console.log(formatReaderTable(report));
  }
  return reports;
}

/** One reader run as markdown tables: overall, by gold kind, type and phrasing family; then by distractor kind. */
function formatReaderTable(report: ReaderEvalReport): string {
  const pct = (s: ReaderStats) => `${(100 * s.accuracy).toFixed(1)}% (${s.correct}/${s.n})`;
  const rows: [string, ReaderStats][] = [
    ['all', report.overall],
    ['gold stated', report.byGold.stated],
    ['gold "unknown"', report.byGold.unknown],
    ...Object.entries(report.byType).map(([k, v]): [string, ReaderStats] => [`type ${k}`, v]),
    ...Object.entries(report.byFamily).map(([k, v]): [string, ReaderStats] => [`family ${k}`, v]),
  ];
  return [
    `leaf reads (${report.mode}, seed ${report.seed})`,
    '| group | accuracy |',
    '| --- | ---: |',
    ...rows.map(([name, s]) => `| ${name} | ${pct(s)} |`),
    `copying (stated golds): character similarity ${report.copy.charSimilarity.toFixed(3)}, ` +
      `first character right ${(100 * report.copy.firstCharMatch).toFixed(1)}%`,
    ...distractorTable(report),
  ].join('\n');
}

/** Reads by the kinds of distractor in their chunk, with how often a wrong read took a distractor's words. */
function distractorTable(report: ReaderEvalReport): string[] {
  const kinds = Object.entries(report.byDistractor).sort(([a], [b]) => a.localeCompare(b));
  if (kinds.length === 0) return [];
  const share = (k: number, n: number) => `${((100 * k) / n).toFixed(1)}% (${k}/${n})`;
  return [
    '',
    '| chunk holds a distractor of kind | accuracy | wrong, read from that distractor |',
    '| --- | ---: | ---: |',
    ...kinds.map(([k, s]) => `| ${k} | ${share(s.correct, s.n)} | ${share(s.fromDistractor, s.n)} |`),
  ];
}

/** What each endpoint of the run spent (the policy's, the sub-calls'), over every system and the reader run. */
function endpointUsage(root: RootPolicy, reader: EndpointPolicy | null): EndpointUsage[] {
  const rows: EndpointUsage[] = [];
  if (root.client !== null) rows.push({ role: 'policy', label: root.label, ...root.client.usage });
  if (reader !== null)
    rows.push({ role: 'subcalls', label: openAiLabel(reader.client.endpoint), ...reader.client.usage });
  return rows;
}

/**
 * Why the suite is a failure, or null: some system scored no episode because every one failed for infrastructure
 * reasons (the endpoint down or refusing, the sandbox crashing), so its accuracy would read 0% over nothing. Names
 * each such system and its distinct causes.
 */
function nothingScored(report: EvalSuiteReport): string | null {
  const failed = report.systems.flatMap(({ system, runs }) => {
    const tasks = runs.flatMap((run) => run.tasks);
    if (tasks.length === 0 || tasks.some((t) => t.infraError === undefined)) return [];
    const causes = [...new Set(tasks.map((t) => t.infraError))].map((cause) => `  ${cause}`);
    return [`${system}: all ${tasks.length} episodes ended in infra_error:`, ...causes];
  });
  return failed.length === 0 ? null : ['no episode could be scored for infrastructure reasons', ...failed].join('\n');
}

/**
 * Writes the policy's results as EvalResult rows, one evaluation per seed, the rows a queued eval writes (so the
 * dashboard's eval comparison shows them beside the checkpoints'), under `checkpoint`. Returns the evaluations' ids.
 */
async function recordEval(report: EvalSuiteReport, checkpoint: string, flags: EvalFlags): Promise<string[]> {
  const url = flags.databaseUrl ?? process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const database = new URL(url).pathname.slice(1);
  const split = flags.tasks === undefined ? flags.split : `file:${flags.tasks}`;
  const prisma = createPrismaClient(url);
  try {
    const evals = new EvalRepository(prisma);
    const ids: string[] = [];
    for (const run of report.systems[0].runs) {
      const evalId = `cli-${randomUUID()}`;
      const rows = await evals.recordMany(evalRowsOf({ evalId, checkpoint, split }, run)).catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`--record: could not write to the database "${database}" (fathom db migrate?): ${reason}`);
      });
      console.log(`recorded eval ${evalId} of ${checkpoint} (seed ${run.seed}, ${rows} rows) in ${database}`);
      ids.push(evalId);
    }
    return ids;
  } finally {
    await prisma.$disconnect();
  }
}

async function runEval(flags: EvalFlags): Promise<void> {
  if (flags.mode === 'greedy' && flags.seeds.length > 1)
    throw new Error(`--seeds ${flags.seeds.join(',')} needs --mode sampled (greedy decoding is deterministic)`);
  const chunkFlags = [flags.readersEvidenceOnly, flags.readersKeyOnly, flags.readersShared, flags.readersRecall];
  if (chunkFlags.filter(Boolean).length > 1)
    throw new Error('give one of --readers-evidence-only, --readers-key-only, --readers-shared and --readers-recall');
  if (flags.readersFile !== undefined && chunkFlags.some(Boolean))
    throw new Error(
      '--readers-file reads its own chunks: give it without --readers-evidence-only, -key-only, -shared or -recall',
    );
  // A bad episode setting fails here, before a model is loaded.
  resolveEpisodeConfig(episodeInput(flags, DEFAULT_PROMPT_STYLE));
  const root = await loadRootPolicy({
    checkpoint: flags.checkpoint,
    policy: flags.policy,
    promptStyle: flags.promptStyle,
    version: flags.policyVersion,
  });
  const { policy, promptStyle, release } = root;
  const tasks = await loadTasks(flags);
  if (flags.record && tasks.length === 0) throw new Error('--record needs tasks to evaluate (--n is 0)');
  // Resolved, so the report states every setting the episodes ran with, defaults included.
  const episode = resolveEpisodeConfig(episodeInput(flags, promptStyle));
  const reader = await loadLeafReader({
    subcalls: flags.subcalls,
    checkpoint: flags.readerCheckpoint,
    version: flags.policyVersion,
  });
  const sandbox = await SandboxPool.start({ workers: flags.workers });
  const episodes = flags.episodes === undefined ? null : createWriteStream(flags.episodes);
  const bar = new SingleBar({
    stream: process.stderr,
    format: 'eval [{bar}] {value}/{total} | {run} | accuracy {accuracy} | {duration}s',
    hideCursor: true,
  });
  // Running accuracy of the run in progress (one system at one seed).
  let run = '';
  let correct = 0;
  let scored = 0;
  try {
    const report =
      tasks.length === 0
        ? null
        : await evaluateSuite(policy, tasks, {
            sandbox,
            mode: flags.mode,
            seeds: flags.seeds,
            baselines: flags.baselines,
            regexProgram: runRegexBaseline,
            oracleReader: oracleRead,
            readerPolicy: reader?.policy,
            episode,
            concurrency: flags.concurrency,
            onTask: ({ system, seed, result, done, total }) => {
              const name = flags.mode === 'sampled' && system !== 'regex' ? `${system} seed ${seed}` : system;
              if (name !== run) [run, correct, scored] = [name, 0, 0];
              if (result.correct !== null) {
                scored++;
                if (result.correct) correct++;
              }
              if (!flags.progress) return;
              const accuracy = scored === 0 ? '—' : `${((100 * correct) / scored).toFixed(1)}%`;
              if (done === 1) bar.start(total, 0, { run, accuracy });
              bar.update(done, { run, accuracy });
            },
            onEpisode: (record) => episodes?.write(`${JSON.stringify(record)}\n`),
          });
    if (flags.progress) bar.stop();
    if (report !== null) console.log(formatEvalTable(report));
    const readers = await evaluateReaders(reader?.policy ?? policy, sandbox, flags);
    const endpoints = endpointUsage(root, reader?.endpoint ?? null);
    for (const e of endpoints) console.log(formatUsage(`${e.role} endpoint ${e.label}`, e));
    const failure = report === null ? null : nothingScored(report);
    const recorded =
      flags.record && report !== null && failure === null ? await recordEval(report, root.label, flags) : [];
    if (flags.out !== undefined) {
      const body = {
        checkpoint: root.label,
        readerCheckpoint: flags.readerCheckpoint ?? null,
        split: flags.tasks === undefined ? flags.split : null,
        tasksFile: flags.tasks ?? null,
        dataSeed: flags.tasks === undefined ? flags.dataSeed : null,
        episode,
        ...report,
        readers,
        endpoints,
        recorded,
      };
      await writeFile(flags.out, `${JSON.stringify(body, null, 2)}\n`);
      console.log(`wrote ${flags.out}`);
    }
    if (episodes !== null) console.log(`wrote ${flags.episodes}`);
    // The reports above are written first, so the failed episodes can be read; nothing is recorded.
    if (failure !== null) throw new Error(failure);
  } finally {
    if (episodes !== null) await finished(episodes.end());
    await sandbox.close();
    await release();
    await reader?.release();
  }
}

export function evalCommand(): Command {
  const command = new Command('eval')
    .description(
      'Evaluate a policy (a checkpoint, or a model on an OpenAI-compatible server) against its baselines on the ' +
        'same tasks: accuracy per task type, context length and seen/unseen phrasing; llm() calls, recursion depth ' +
        'and leaf sub-call accuracy; the regex-only programs, the policy with llm() disabled and the policy with an ' +
        'oracle reader (docs/EVAL.md).',
    )
    .option('--checkpoint <dir>', 'Hugging Face-style checkpoint folder (config.json, model.safetensors, tokenizer)')
    .option(
      '--policy <openai:URL#MODEL>',
      'instead of --checkpoint: a model on an OpenAI-compatible server writes the turns (docs/EVAL.md)',
      openAiSpec,
    )
    .option(
      '--subcalls <openai:URL#MODEL>',
      'leaf llm() reads (chunks within the reader window) are answered by this OpenAI-compatible endpoint',
      openAiSpec,
    )
    .option(
      '--reader-checkpoint <dir>',
      'leaf llm() reads are answered by this checkpoint (e.g. a reader trained by experiments/reader/reproduce.sh)',
    )
    .option(
      '--reader-window <chars>',
      `largest llm() chunk read directly (a leaf); larger chunks start a child episode (default ${DEFAULT_READER_WINDOW_CHARS})`,
      integer('--reader-window', 1),
    )
    .addOption(
      new Option('--split <split>', 'split to generate when --tasks is not given').choices(SPLITS).default('heldout'),
    )
    .option('--tasks <file>', 'evaluate the tasks of this JSONL file instead of generating the split')
    .option('--n <n>', 'number of tasks (default: the split size: 500 heldout; 0: none)', integer('--n', 0))
    .option(
      '--readers <n>',
      'also measure leaf reads on n reader examples of the split (the reader curriculum, --data-seed)',
      integer('--readers', 0),
      0,
    )
    .option('--readers-max-chunk <chars>', 'longest reader chunk', integer('--readers-max-chunk', 400), 1000)
    .option('--readers-evidence-only', 'reader chunks of the evidence alone, no distractors or filler', false)
    .option(
      '--readers-key-only',
      'reader chunks of key sentences only: the evidence among every distractor of its task, no filler',
      false,
    )
    .option(
      '--readers-shared',
      'reader chunks shared by 2-4 questions about different tasks, each holding its evidence and a few of its ' +
        'distractors (no filler): only the question tells which sentence answers it',
      false,
    )
    .option(
      '--readers-recall',
      'recall drills instead: 3-7 facts in one frame about nonsense keys, a question about one of them',
      false,
    )
    .option(
      '--readers-file <jsonl>',
      'measure leaf reads on the reader examples of this file (fathom sft-data --readers-out) instead; --readers n ' +
        'takes its first n',
    )
    .option(
      '--readers-unknown-share <share>',
      `share of reader chunks without the evidence, answered "unknown" (default ${READER_UNKNOWN_SHARE}); with ` +
        '--readers-evidence-only ' +
        'such a chunk is one distractor sentence, or one of several evidence sentences',
      share('--readers-unknown-share'),
    )
    .option(
      '--extractive-reads',
      'leaf llm() reads answer with a span of their chunk or "unknown" (span-constrained decoding; docs/EVAL.md)',
      false,
    )
    .option(
      '--leaf-temperature <t>',
      "temperature of leaf llm() reads (0 = greedy; default: the mode's), e.g. a frozen --reader-checkpoint read " +
        'greedily while the policy samples',
      number('--leaf-temperature'),
    )
    .option('--data-seed <n>', 'seed of the generated split', integer('--data-seed', 0), 0)
    .addOption(
      new Option('--mode <mode>', 'greedy (temperature 0) or sampled').choices(['greedy', 'sampled']).default('greedy'),
    )
    .option('--seeds <list>', 'sampling seeds, one run each (sampled mode), e.g. 0,1,2', seedList, [0])
    .option(
      '--baselines <list>',
      `baselines run on the same tasks: any of ${EVAL_BASELINES.join(',')}, or none`,
      baselineList,
      [...EVAL_BASELINES],
    )
    .addOption(
      new Option('--prompt-style <system>', "prompt style (default: the checkpoint's own, else full)").choices([
        'full',
        'compact',
      ]),
    );
  return withEpisodeLimits(command)
    .option(
      '--set <key=value>',
      'override any episode setting by its dotted path (libs/rlm EpisodeConfig), e.g. subcalls.maxTurns=2 ' +
        '(repeatable; after the flags)',
      collect,
      [],
    )
    .option('--workers <n>', 'sandbox worker processes', integer('--workers', 1), 2)
    .option('--concurrency <n>', 'episodes decoded together, as one batch', integer('--concurrency', 1), 16)
    .option('--policy-version <n>', 'policy version stamped on the report', integer('--policy-version', 0), 0)
    .option('--out <file>', 'write the JSON report here')
    .option('--episodes <file>', 'write every episode (turns, observations, llm() calls) here as JSONL')
    .option(
      '--record',
      "record the policy's results in Postgres (EvalResult rows, one evaluation per seed) for the dashboard's eval " +
        'comparison, under the checkpoint folder or openai:MODEL@URL',
      false,
    )
    .option('--database-url <url>', 'Postgres URL of --record (default: $DATABASE_URL or the local fathom database)')
    .option('--no-progress', 'do not draw the progress bar')
    .action((flags: EvalFlags) => runEval(flags));
}
