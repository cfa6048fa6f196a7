import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { Command, InvalidArgumentError } from 'commander';
import { SingleBar } from 'cli-progress';
import { SftExampleSchema, SPLITS, type Split, type SftReaderExample, type Task } from '@fathom/contracts';
import {
  buildReaderExamples,
  buildSftExamples,
  DEFAULT_READER_WINDOW_CHARS,
  DEFAULT_REPAIR_SHARE,
  DEFAULT_TEACHER_MIX,
  formatSftStats,
  parseTeacherMix,
  readerCurriculumStats,
  SftStatsAccumulator,
} from '@fathom/rlm';
import { SandboxPool } from '@fathom/sandbox';
import { READER_UNKNOWN_SHARE, readTasksJsonl } from '@fathom/tasks';
import { integer, share } from './args';

function split(value: string): Split {
  if (!(SPLITS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`--readers-split must be one of ${SPLITS.join(', ')}, got "${value}"`);
  return value as Split;
}

interface SftDataFlags {
  tasks: string;
  out: string;
  mix?: string;
  seed: number;
  perTask: number;
  repairShare: number;
  readers: number;
  readersOut?: string;
  readersTextsOut?: string;
  readersSplit: Split;
  readersSeed: number;
  readersMaxChunk: number;
  readersEvidenceOnly: boolean;
  readersEvidenceShare?: number;
  readersCopyShare: number;
  readersRecallShare: number;
  readersKeyShare: number;
  readersUnknownShare?: number;
  readersInventedShare: number;
  readersInventedQuestionShare: number;
  readersInventedDistractorShare: number;
  readersSharedShare: number;
  everyStrategy: boolean;
  workers: number;
  concurrency: number;
  progress: boolean;
  json: boolean;
}

/** Lines of a file, for the progress bar's total (streamed: dataset files can be hundreds of MB). */
async function countLines(file: string): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
    if (chunk.length > 0) last = chunk[chunk.length - 1];
  }
  return last === 10 ? lines : lines + 1;
}

async function writeLine(out: WriteStream, line: string): Promise<void> {
  if (!out.write(line)) await once(out, 'drain');
}

/** The reader curriculum: `flags.readers` leaf sub-call examples, one `SftReaderExample` per line. */
async function writeReaders(flags: SftDataFlags & { readersOut: string }): Promise<void> {
  const out = createWriteStream(flags.readersOut);
  const texts = flags.readersTextsOut === undefined ? undefined : createWriteStream(flags.readersTextsOut);
  const written: SftReaderExample[] = [];
  try {
    for (const example of buildReaderExamples({
      split: flags.readersSplit,
      n: flags.readers,
      seed: flags.readersSeed,
      readerWindowChars: flags.readersMaxChunk,
      evidenceShare: flags.readersEvidenceOnly ? 1 : (flags.readersEvidenceShare ?? 0),
      copyShare: flags.readersCopyShare,
      recallShare: flags.readersRecallShare,
      keyShare: flags.readersKeyShare,
      unknownShare: flags.readersUnknownShare,
      inventedShare: flags.readersInventedShare,
      inventedQuestionShare: flags.readersInventedQuestionShare,
      inventedDistractorShare: flags.readersInventedDistractorShare,
      sharedShare: flags.readersSharedShare,
    })) {
      await writeLine(out, `${JSON.stringify(example)}\n`);
      if (texts) await writeLine(texts, `${JSON.stringify({ id: `read${written.length}`, text: example.chunk })}\n`);
      written.push(example);
    }
  } finally {
    for (const stream of texts ? [out, texts] : [out]) {
      stream.end();
      await once(stream, 'close');
    }
  }
  const stats = readerCurriculumStats(written);
  console.error(
    `wrote ${stats.examples} reader examples (${flags.readersSplit}, seed ${flags.readersSeed}) to ${flags.readersOut}: ` +
      `${stats.unknown} "unknown", longest chunk ${stats.maxChunkChars} chars, by type ${JSON.stringify(stats.byType)}, ` +
      `by family ${JSON.stringify(stats.byFamily)}`,
  );
}

async function sftData(flags: SftDataFlags): Promise<void> {
  // The mix and the reader flags are checked before any file is touched.
  const mix = flags.mix === undefined ? DEFAULT_TEACHER_MIX : parseTeacherMix(flags.mix);
  const readersOut = flags.readersOut;
  if (flags.readers > 0 !== (readersOut !== undefined))
    throw new InvalidArgumentError('--readers <n> and --readers-out <file> go together');
  if (flags.readersTextsOut !== undefined && readersOut === undefined)
    throw new InvalidArgumentError('--readers-texts-out needs --readers and --readers-out');
  if (flags.readersEvidenceOnly && flags.readersEvidenceShare !== undefined)
    throw new InvalidArgumentError('give --readers-evidence-only or --readers-evidence-share, not both');
  if (flags.readersMaxChunk > DEFAULT_READER_WINDOW_CHARS)
    throw new InvalidArgumentError(
      `--readers-max-chunk must be at most the reader window (${DEFAULT_READER_WINDOW_CHARS}), got ${flags.readersMaxChunk}`,
    );
  // Before anything is written: an empty tasks file would otherwise leave empty outputs over earlier ones.
  const total = await countLines(flags.tasks);
  if (total === 0) throw new InvalidArgumentError(`${flags.tasks} holds no tasks`);
  if (readersOut !== undefined) await writeReaders({ ...flags, readersOut });
  const bar = new SingleBar({
    stream: process.stderr,
    format: 'sft-data [{bar}] {value}/{total} tasks | {examples} examples, {accuracy} correct | {duration}s',
    hideCursor: true,
  });
  const stats = new SftStatsAccumulator();
  let read = 0;
  async function* counted(tasks: AsyncIterable<Task>): AsyncGenerator<Task> {
    for await (const task of tasks) {
      read++;
      yield task;
    }
  }
  const pool = await SandboxPool.start({ workers: flags.workers, warmIsolatesPerWorker: flags.concurrency });
  const out = createWriteStream(flags.out);
  const started = performance.now();
  try {
    if (flags.progress) bar.start(total, 0, { examples: 0, accuracy: '-' });
    const examples = buildSftExamples(counted(readTasksJsonl(flags.tasks)), {
      pool,
      mix,
      seed: flags.seed,
      perTask: flags.perTask,
      repairShare: flags.repairShare,
      everyStrategy: flags.everyStrategy,
      concurrency: flags.concurrency,
      onSkip: (skip) => {
        stats.skip(skip);
        console.error(`skipped ${skip.task_id} (${skip.strategy ?? '-'}): ${skip.reason}: ${skip.detail}`);
      },
    });
    for await (const example of examples) {
      await writeLine(out, `${JSON.stringify(SftExampleSchema.parse(example))}\n`);
      stats.add(example);
      const overall = stats.result().overall;
      if (flags.progress)
        bar.update(read, { examples: overall.examples, accuracy: `${(100 * overall.accuracy).toFixed(1)}%` });
    }
    if (flags.progress) bar.update(read);
  } finally {
    if (flags.progress) bar.stop();
    out.end();
    await once(out, 'close');
    await pool.close();
  }
  const result = stats.result();
  const seconds = (performance.now() - started) / 1000;
  console.error(
    `wrote ${result.overall.examples} SFT examples for ${read} tasks to ${flags.out} in ${seconds.toFixed(1)} s`,
  );
  console.log(flags.json ? JSON.stringify(result, null, 2) : formatSftStats(result));
}

/** `fathom sft-data`: teacher SFT episodes (code → sandbox observation → answer) for a tasks file (docs/TEACHER.md). */
export function sftDataCommand(): Command {
  return new Command('sft-data')
    .description(
      'Write teacher SFT examples for a tasks JSONL file, from a mix of robust and naive strategies, and optionally the reader curriculum of leaf sub-calls.',
    )
    .requiredOption('--tasks <file>', 'tasks JSONL (fathom data generate)')
    .requiredOption('--out <file>', 'output SFT JSONL (one SftExample per line)')
    .option('--mix <weights>', 'robust share and strategy weights, e.g. robust=0.6,niah.llm_window=0 (docs/TEACHER.md)')
    .option('--seed <seed>', 'seed of the strategy draws', integer('--seed', 0), 0)
    .option('--per-task <n>', 'examples per task, each by a different strategy', integer('--per-task', 1), 1)
    .option(
      '--repair-share <share>',
      'share of examples that open with a broken cell, its sandbox error, then the fix',
      share('--repair-share'),
      DEFAULT_REPAIR_SHARE,
    )
    .option('--readers <n>', 'also write n leaf reader examples (the reader curriculum)', integer('--readers', 0), 0)
    .option('--readers-out <file>', 'output JSONL of reader examples (one SftReaderExample per line)')
    .option(
      '--readers-texts-out <file>',
      "also write each reader's chunk, without its question or answer, as a line of a `text` data set " +
        '(language-model pretraining)',
    )
    .option('--readers-split <split>', 'split whose entities and frames the reader examples use', split, 'train')
    .option('--readers-seed <seed>', 'seed of the reader examples', integer('--readers-seed', 0), 0)
    .option(
      '--readers-max-chunk <chars>',
      'longest reader chunk (at most the reader window)',
      integer('--readers-max-chunk', 400),
      DEFAULT_READER_WINDOW_CHARS,
    )
    .option('--readers-evidence-only', 'reader chunks of the evidence alone (a first curriculum stage)', false)
    .option(
      '--readers-evidence-share <share>',
      'share of reader chunks of the evidence alone (instead of --readers-evidence-only, which is share 1)',
      share('--readers-evidence-share'),
    )
    .option(
      '--readers-copy-share <share>',
      'share of copy drills among the readers: random words and codes, answered by copying the whole chunk',
      share('--readers-copy-share'),
      0,
    )
    .option(
      '--readers-key-share <share>',
      'share of the other reader chunks that hold only key sentences: the evidence among every distractor of its task, ' +
        'no filler (what search(question) hands a reader)',
      share('--readers-key-share'),
      0,
    )
    .option(
      '--readers-unknown-share <share>',
      `share of reader chunks without the evidence (its distractors and filler), answered "unknown" (default ${READER_UNKNOWN_SHARE})`,
      share('--readers-unknown-share'),
    )
    .option(
      '--readers-invented-share <share>',
      'share of reader chunks whose key-to-value sentences use invented frames (random filler words between the key ' +
        'and the value) instead of the written ones, so a reader cannot lean on their wording',
      share('--readers-invented-share'),
      0,
    )
    .option(
      '--readers-invented-question-share <share>',
      'share of reader questions (tracking aside) that are invented: an opening and filler words before the key, ' +
        'nothing about what is asked',
      share('--readers-invented-question-share'),
      0,
    )
    .option(
      '--readers-invented-distractor-share <share>',
      'share of reader chunks whose negation, hypothetical, correction and past-state distractors are invented ' +
        '(filler words around the key and the wrong value, and a meaning cue in varied places)',
      share('--readers-invented-distractor-share'),
      0,
    )
    .option(
      '--readers-recall-share <share>',
      'share of reader examples that are recall drills: 3-7 facts in one frame about nonsense keys and a question ' +
        'about one of them, so only matching the key scores',
      share('--readers-recall-share'),
      0,
    )
    .option(
      '--readers-shared-share <share>',
      'share of reader examples that come in groups of 2-4 questions about different tasks over one shared chunk ' +
        'holding the evidence of each, so only the question tells which sentence answers it',
      share('--readers-shared-share'),
      0,
    )
    .option('--every-strategy', 'ignore the mix: every strategy of the task type writes an example', false)
    .option('--workers <n>', 'sandbox worker processes', integer('--workers', 1), 2)
    .option('--concurrency <n>', 'tasks in flight at once', integer('--concurrency', 1), 4)
    .option('--no-progress', 'do not draw the progress bar')
    .option('--json', 'print the summary as JSON instead of a table', false)
    .action(sftData);
}
