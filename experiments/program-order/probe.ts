/**
 * Probe (experiments/program-order/NOTE.md): one fixed program, read from a file, plays every episode in place of the
 * root, and a checkpoint's span reader answers its leaf llm() reads. The program is written by ScriptedTestPolicy, the
 * suite's test double, so the probe measures a program with a real reader before any root is trained to write it.
 *
 * Usage: node --no-node-snapshot --import tsx experiments/program-order/probe.ts TASKS.jsonl PROGRAM.js [CHECKPOINT]
 *   CHECKPOINT: a pair folder with reader/ (default data/checkpoints/default); SHOW=<type> prints that type's reads.
 */
import { readFileSync } from 'node:fs';
import type { Task } from '@fathom/contracts';
import { evaluate, ScriptedTestPolicy, type EvalStats, type Policy } from '@fathom/rlm';
import { SandboxPool } from '@fathom/sandbox';
import { loadPolicy } from '@fathom/training';

const [tasksFile, programFile, checkpoint = 'data/checkpoints/default'] = process.argv.slice(2);
if (programFile === undefined) throw new Error('usage: probe.ts TASKS.jsonl PROGRAM.js [CHECKPOINT]');
const program = readFileSync(programFile, 'utf8').trim();
const tasks: Task[] = readFileSync(tasksFile, 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Task);

const loaded = await loadPolicy(checkpoint);
const { readSpan } = loaded.policy;
if (readSpan === undefined) throw new Error(`${checkpoint} has no span reader`);
const script = new ScriptedTestPolicy(loaded.policy.tokenizer, () => '```js\n' + program + '\n```');
const policy: Policy = {
  tokenizer: loaded.policy.tokenizer,
  version: 0,
  maxLength: loaded.policy.maxLength,
  sample: (requests, params) => script.sample(requests, params),
  readSpan: (request) => readSpan.call(loaded.policy, request),
};
const sandbox = await SandboxPool.start({ workers: 2 });
try {
  const report = await evaluate(policy, tasks, {
    sandbox,
    // The programs are written whole in one turn, so a turn may hold more than the root's 512 tokens.
    episode: { promptStyle: loaded.promptStyle, maxTokensPerTurn: 1024, maxEpisodeTokens: 8192 },
    onEpisode: (e) => {
      if (e.type !== process.env.SHOW) return;
      const reads = e.calls.map((c) => `${c.question} [${c.chunkChars} chars] → ${c.answer}`);
      console.log(`${e.question} | gold ${e.gold} | answer ${e.answer}\n  ${reads.join('\n  ')}`);
    },
  });
  const pct = (s: EvalStats | undefined) => (s === undefined ? '-' : `${(100 * s.accuracy).toFixed(1)}%`);
  const groups = { overall: report.overall, ...report.byType, ...report.byPhrasing };
  console.log(
    `${programFile}: ${Object.entries(groups)
      .map(([name, s]) => `${name} ${pct(s)}`)
      .join(' | ')}`,
  );
} finally {
  await sandbox.close();
  await loaded.release();
}
