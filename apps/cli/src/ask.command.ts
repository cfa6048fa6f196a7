import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import type { EpisodeTrajectory, RecursionTreeNode } from '@fathom/contracts';
import { DEFAULT_READER_WINDOW_CHARS, EpisodeRunner, openAiLabel, type OpenAiEndpoint } from '@fathom/rlm';
import { SandboxPool } from '@fathom/sandbox';
import { estimateTokens } from '@fathom/tasks';
import { integer, withEpisodeLimits } from './args';
import { formatUsage, loadLeafReader, loadRootPolicy, openAiSpec, subcallsInput } from './policy-source';

interface AskFlags {
  checkpoint?: string;
  policy?: OpenAiEndpoint;
  subcalls?: OpenAiEndpoint;
  readerCheckpoint?: string;
  readerWindow?: number;
  extractiveReads: boolean;
  file: string;
  mode: 'greedy' | 'sampled';
  seed: number;
  /** Absent: the episode config's defaults (libs/contracts `EpisodeSettingsSchema`). */
  maxTurns?: number;
  maxTurnTokens?: number;
  maxEpisodeTokens?: number;
  trace: boolean;
  progress: boolean;
}

/**
 * The recursion tree as indented lines: one per node, with its kind, question, chunk size and answer, and for a leaf
 * read by a span head the span it chose and its probability.
 */
export function formatTree(node: RecursionTreeNode, indent = ''): string[] {
  const what = node.kind === 'root' ? 'episode' : `llm() ${node.kind}`;
  const read = node.read;
  const line =
    `${indent}${what} (depth ${node.depth}, ${node.chunkChars} chars, ${node.turns} turn(s)): ` +
    `${JSON.stringify(node.prompt)} → ${node.answer === null ? '(no answer)' : JSON.stringify(node.answer)}` +
    (read === undefined ? '' : ` [span head: tokens ${read.start}–${read.end}, p ${read.probability.toFixed(3)}]`) +
    (node.error === undefined ? '' : ` [error: ${node.error}]`);
  return [line, ...node.children.flatMap((child) => formatTree(child, `${indent}  `))];
}

/** Every turn's model text and observation, then the recursion tree. */
export function formatTrace(trajectory: EpisodeTrajectory): string {
  const lines: string[] = [];
  trajectory.turns.forEach((turn, i) => {
    lines.push(`--- turn ${i + 1} (${turn.completionTokens} tokens) ---`, turn.completion);
    if (turn.observation !== null) lines.push(`--- output ---`, turn.observation);
  });
  lines.push(`--- ${trajectory.status} (${trajectory.stopReason}) ---`, ...formatTree(trajectory.recursionTree));
  return lines.join('\n');
}

async function ask(question: string, flags: AskFlags): Promise<void> {
  const context = await readFile(flags.file, 'utf8');
  if (context.length === 0) throw new Error(`${flags.file} is empty`);
  const root = await loadRootPolicy({ checkpoint: flags.checkpoint, policy: flags.policy });
  const reader = await loadLeafReader({ subcalls: flags.subcalls, checkpoint: flags.readerCheckpoint });
  const sandbox = await SandboxPool.start({ workers: 1 });
  const started = Date.now();
  const ticker = flags.progress
    ? setInterval(() => {
        process.stderr.write(
          `\rfathom ask: reading ${context.length} characters … ${Math.round((Date.now() - started) / 1000)} s`,
        );
      }, 1000)
    : null;
  try {
    const runner = new EpisodeRunner(
      { sandbox, policy: root.policy, readerPolicy: reader?.policy },
      {
        promptStyle: root.promptStyle,
        maxTurns: flags.maxTurns,
        maxTokensPerTurn: flags.maxTurnTokens,
        maxEpisodeTokens: flags.maxEpisodeTokens,
        sampling: { temperature: flags.mode === 'greedy' ? 0 : 1 },
        maxInfraRetries: 0,
        ...subcallsInput(flags),
      },
    );
    const task = { id: 'ask', question, context, contextTokens: estimateTokens(context) };
    const group = await runner.runGroup(task, { G: 1, seed: flags.seed });
    const trajectory = group.trajectories[0] ?? group.excluded[0];
    if (ticker !== null) process.stderr.write('\n');
    if (flags.trace) console.log(formatTrace(trajectory));
    if (root.client !== null) console.error(formatUsage(`policy endpoint ${root.label}`, root.client.usage));
    const endpoint = reader?.endpoint;
    if (endpoint)
      console.error(formatUsage(`subcalls endpoint ${openAiLabel(endpoint.client.endpoint)}`, endpoint.client.usage));
    if (trajectory.status === 'infra_error')
      throw new Error(`the episode failed: ${trajectory.infraError?.message ?? 'infra error'}`);
    console.log(trajectory.answer ?? `(no answer: the episode ended ${trajectory.status}, ${trajectory.stopReason})`);
  } finally {
    if (ticker !== null) clearInterval(ticker);
    await sandbox.close();
    await root.release();
    await reader?.release();
  }
}

export function askCommand(): Command {
  const command = new Command('ask')
    .description(
      'answer a question about a text file with a trained RLM (--checkpoint) or a model on an OpenAI-compatible ' +
        'server (--policy): the file is ctx, the policy writes code',
    )
    .argument('<question>', 'the question')
    .option('--checkpoint <dir>', 'a checkpoint folder (default: the shipped model, data/checkpoints/default)')
    .option(
      '--policy <openai:URL#MODEL>',
      'instead of --checkpoint: a model on an OpenAI-compatible server writes the turns',
      openAiSpec,
    )
    .option(
      '--subcalls <openai:URL#MODEL>',
      'leaf llm() reads are answered by this OpenAI-compatible endpoint',
      openAiSpec,
    )
    .option('--reader-checkpoint <dir>', 'leaf llm() reads are answered by this local checkpoint')
    .option(
      '--extractive-reads',
      'leaf llm() reads answer with a span of their chunk or "unknown" (span-constrained decoding)',
      false,
    )
    .option(
      '--reader-window <chars>',
      `largest llm() chunk read directly (a leaf); larger chunks start a child episode (default ${DEFAULT_READER_WINDOW_CHARS})`,
      integer('--reader-window', 1),
    )
    .requiredOption('--file <path>', 'the document (UTF-8 text), bound to ctx in the REPL')
    .addOption(new Option('--mode <mode>', 'decoding').choices(['greedy', 'sampled']).default('greedy'))
    .option('--seed <n>', 'sampling seed', integer('--seed', 0), 0);
  return withEpisodeLimits(command)
    .option('--trace', 'print every turn, its output and the recursion tree', false)
    .option('--no-progress', 'do not print the progress line')
    .action((question: string, flags: AskFlags) => ask(question, flags));
}
