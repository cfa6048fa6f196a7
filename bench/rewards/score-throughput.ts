/**
 * Reward scoring throughput: trajectories scored per second on one core (the main thread), for typical
 * multi-turn completions. Prints one JSON line per case with the median over repeats.
 *
 *   node --no-node-snapshot --import tsx bench/rewards/score-throughput.ts [--repeats 7] [--per-repeat 50000]
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { scoreGroup, scoreTrajectory, type RewardTrajectory } from '@fathom/rewards';

const { values } = parseArgs({
  options: {
    repeats: { type: 'string', default: '7' },
    'per-repeat': { type: 'string', default: '50000' },
  },
});
const repeats = Number(values.repeats);
const perRepeat = Number(values['per-repeat']);

const task = {
  question: 'What is the total cost of the apple, the lemon and the plum?',
  answer: '1200',
  aliases: ['1,200'],
  context_tokens: 16_000,
};

const SEARCH = [
  'I will look for the prices of each fruit in the document.',
  '```js',
  "const fruits = ['apple', 'lemon', 'plum'];",
  'for (const f of fruits) {',
  '  const re = new RegExp(`${f}[^.]{0,80}?(\\\\d[\\\\d,]*)`, "i"); // find "apple ... 400"',
  '  const m = ctx.match(re);',
  "  print(f, m ? m[1] : 'not found', m ? ctx.slice(m.index - 100, m.index + 200) : '');",
  '}',
  '```',
].join('\n');

const RECURSE = [
  'The plum price is ambiguous; I will ask a sub-model about that part of the document.',
  '```js',
  "const i = ctx.indexOf('plum');",
  "const answer = await llm('What does the plum cost? Reply with a number.', ctx.slice(i - 2000, i + 2000));",
  'print(answer);',
  '```',
].join('\n');

/** Eight typical final turns: right, wrong, untagged, stuffed, formatted differently. */
const FINALS = [
  'The apple costs 400, the lemon 300 and the plum 500, so the total is 1200.\n<answer>1200</answer>',
  'Adding them up: 400 + 300 + 500.\n<answer>1,200</answer>',
  'Adding them up: 400 + 300 + 400.\n<answer>1100</answer>',
  'The total is\n1200',
  '<answer>$1,200</answer>',
  'I could not find the plum.\n<answer>700</answer>',
  '<answer>1200</answer>\n<answer>1300</answer>',
  'The sum of the three prices.\n<answer>The total is 1200</answer>',
];

function typical(index: number, offline: boolean): RewardTrajectory {
  const calls = index % 4;
  const earlier = calls > 0 ? [SEARCH, RECURSE] : [SEARCH];
  return {
    turns: [...earlier, FINALS[index % FINALS.length]].map((completion) => ({ completion })),
    llmCalls: offline
      ? null
      : Array.from({ length: calls }, () => ({ depth: 1, promptTokens: 1100, completionTokens: 12, chunkChars: 4000 })),
    tokens: { completion: 180 + 40 * index, subcall: offline ? 0 : calls * 1112 },
  };
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function measure(name: string, trajectories: RewardTrajectory[], score: (batch: RewardTrajectory[]) => number): void {
  const chars = trajectories.reduce((n, t) => n + t.turns.reduce((m, turn) => m + turn.completion.length, 0), 0);
  let sink = 0;
  for (let i = 0; i < 2_000; i += trajectories.length) sink += score(trajectories);
  const rates: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const start = process.hrtime.bigint();
    let done = 0;
    while (done < perRepeat) {
      sink += score(trajectories);
      done += trajectories.length;
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    rates.push(done / seconds);
  }
  const perSecond = median(rates);
  console.log(
    JSON.stringify({
      bench: 'rewards.score',
      case: name,
      trajectories_per_s: Math.round(perSecond),
      us_per_trajectory: Number((1e6 / perSecond).toFixed(2)),
      min_per_s: Math.round(Math.min(...rates)),
      max_per_s: Math.round(Math.max(...rates)),
      repeats,
      trajectories_per_repeat: perRepeat,
      mean_chars_per_trajectory: Math.round(chars / trajectories.length),
      target_per_s: 20_000,
      checksum: Number(sink.toFixed(3)),
      node: process.version,
      cpu: cpus()[0]?.model ?? 'unknown',
      threads: 1,
      // Other processes on a shared machine slow every case alike; read the numbers against this.
      load_avg_1m: Number(loadavg()[0].toFixed(2)),
      cores: cpus().length,
    }),
  );
}

const executed = Array.from({ length: 8 }, (_, i) => typical(i, false));
const offline = Array.from({ length: 8 }, (_, i) => typical(i, true));

const one = (batch: RewardTrajectory[]) => {
  let total = 0;
  for (const t of batch) total += scoreTrajectory(t, task).total;
  return total;
};

measure('scoreTrajectory/executed_record', executed, one);
measure('scoreTrajectory/offline_static_count', offline, one);
measure('scoreGroup/G=8/executed_record', executed, (batch) => scoreGroup(batch, task).totals.mean);
