/**
 * Which program the root wrote for each episode of an eval (`fathom eval --episodes FILE`), and whether the second
 * turn of a two-turn program ran after a back-off: a question that lists no items for the multi_needle program, an
 * owner read "unknown" (the last `llm()` call asked with `OWNER_OF_QUESTION`) for the multi_hop one. Back-offs are
 * told from the question and the calls, not from the first turn's observation, which the quiet-first-turn programs
 * leave "(no output)".
 *
 * Usage: node --no-node-snapshot --import tsx experiments/multi-needle-backoff/routes.ts EPISODES.jsonl
 */
import { readFileSync } from 'node:fs';
import { ITEM_LIST, type EvalEpisode } from '@fathom/rlm';
import { OWNER_OF_QUESTION } from '@fathom/tasks';

const [episodesFile] = process.argv.slice(2);
if (episodesFile === undefined) throw new Error('usage: routes.ts EPISODES.jsonl');

type Episode = EvalEpisode & { system: string };

/** The question-only program a first turn starts, told apart by its first names (docs/TEACHER.md). */
function programOf(code: string): string {
  if (code.includes('const listed') || code.includes('const items')) return 'multi_needle';
  if (code.includes('const owned')) return 'multi_hop';
  if (code.includes('question.match(/["')) return 'counting';
  if (code.includes('search(question)')) return 'one_key';
  return 'other';
}

const routes = new Map<string, number>();
const backOffs = new Map<string, number>();
const bump = (tally: Map<string, number>, key: string): void => void tally.set(key, (tally.get(key) ?? 0) + 1);
for (const line of readFileSync(episodesFile, 'utf8').trim().split('\n')) {
  const e = JSON.parse(line) as Episode;
  const [first, second] = e.turns;
  if (first === undefined) continue;
  const program = programOf(first.completion);
  bump(routes, `${e.system} ${e.type} ${e.phrasing} → ${program}: ${e.correct ? 'right' : 'wrong'}`);
  if (e.system !== 'policy' || (program !== 'multi_needle' && program !== 'multi_hop')) continue;
  const ownerReads = e.calls.filter((c) => c.question.startsWith(OWNER_OF_QUESTION));
  const backedOff =
    program === 'multi_needle' ? !ITEM_LIST.test(e.question) : (ownerReads.at(-1)?.answer ?? 'unknown') === 'unknown';
  const ran = second !== undefined && second.action === 'code' && second.sandboxError === null;
  bump(
    backOffs,
    `${program} ${backedOff ? 'back-off' : 'read'}: turn 2 ${ran ? 'ran' : 'broke'}, ${e.correct ? 'right' : 'wrong'}`,
  );
}
for (const [key, n] of [...routes].sort()) console.log(`${key}  ${n}`);
console.log('');
for (const [key, n] of [...backOffs].sort()) console.log(`${key}  ${n}`);
