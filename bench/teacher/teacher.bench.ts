/**
 * Teacher throughput: SFT examples per second from the default mix, by context length, and the median wall time
 * of one teacher episode (open the REPL over ctx, run 1–2 cells, answer) per strategy at the longest contexts.
 * Prints one JSON object per measurement.
 */
import { SandboxPool } from '@fathom/sandbox';
import { generateTasks } from '@fathom/tasks';
import { buildSftExamples, drawEpisode, runTeacherEpisode, STRATEGIES_BY_TYPE } from '@fathom/rlm';
import { median } from '@fathom/contracts';

const config = { workers: 2, warmIsolatesPerWorker: 4, concurrency: 4 };
const pool = await SandboxPool.start({ workers: config.workers, warmIsolatesPerWorker: config.warmIsolatesPerWorker });

for (const [tokens, n] of [
  [1_000, 400],
  [16_000, 200],
  [200_000, 40],
] as const) {
  const tasks = [...generateTasks({ split: 'train', n, seed: 11, minTokens: tokens, maxTokens: tokens })];
  const started = performance.now();
  let examples = 0;
  for await (const _ of buildSftExamples(tasks, { pool, seed: 0, concurrency: config.concurrency })) examples++;
  const seconds = (performance.now() - started) / 1000;
  console.log(
    JSON.stringify({
      bench: 'teacher.build_sft_examples',
      context_tokens: tokens,
      tasks: n,
      examples,
      seconds: Number(seconds.toFixed(2)),
      examples_per_s: Number((examples / seconds).toFixed(1)),
      ...config,
    }),
  );
}

const long = [...generateTasks({ split: 'train', n: 24, seed: 12, minTokens: 200_000, maxTokens: 200_000 })];
for (const strategies of Object.values(STRATEGIES_BY_TYPE))
  for (const strategy of strategies) {
    const ms: number[] = [];
    for (const task of long.filter((t) => t.type === strategy.type)) {
      const started = performance.now();
      await runTeacherEpisode(strategy, task, pool, drawEpisode(strategy, task, 0, 0));
      ms.push(performance.now() - started);
    }
    console.log(
      JSON.stringify({
        bench: 'teacher.episode',
        strategy: strategy.name,
        context_tokens: 200_000,
        episodes: ms.length,
        median_ms: Number(median(ms).toFixed(1)),
        max_ms: Number(Math.max(...ms).toFixed(1)),
      }),
    );
  }
await pool.close();
