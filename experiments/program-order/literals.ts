/**
 * Issue 49's literals line, measured on an eval's episodes (`fathom eval --episodes FILE`): in how many counting,
 * multi_hop and multi_needle episodes the program carried the question's key exactly. The question-only programs
 * carry it at run time, not as a literal, so it is read off what they did: a multi_hop episode carries it when one of
 * its llm() questions holds the object's name; a multi_needle episode when its llm() questions hold every item; a
 * counting episode (no llm()) when its count is the gold one.
 *
 * Usage: node --no-node-snapshot --import tsx experiments/program-order/literals.ts TASKS.jsonl EPISODES.jsonl
 */
import { readFileSync } from 'node:fs';
import type { Task } from '@fathom/contracts';
import type { EvalEpisode } from '@fathom/rlm';

const [tasksFile, episodesFile] = process.argv.slice(2);
if (episodesFile === undefined) throw new Error('usage: literals.ts TASKS.jsonl EPISODES.jsonl');
const lines = <T>(file: string): T[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as T);
const tasks = new Map(lines<Task>(tasksFile).map((t) => [t.id, t]));

const carried = { counting: [0, 0], multi_hop: [0, 0], multi_needle: [0, 0] };
for (const e of lines<EvalEpisode & { system: string }>(episodesFile)) {
  if (e.system !== 'policy' || !(e.type in carried)) continue;
  const keys = tasks.get(e.taskId)?.meta?.keys ?? [];
  const asked = e.calls.map((c) => c.question).join('\n');
  const ok =
    e.type === 'counting'
      ? e.correct === true
      : e.type === 'multi_hop'
        ? asked.includes(keys[0])
        : keys.every((k) => asked.includes(k));
  const tally = carried[e.type as keyof typeof carried];
  tally[0] += ok ? 1 : 0;
  tally[1] += 1;
}
for (const [type, [ok, n]] of Object.entries(carried))
  console.log(`${type}: ${ok}/${n} (${n === 0 ? '-' : ((100 * ok) / n).toFixed(1)}%) carried the key`);
