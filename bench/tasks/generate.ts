/**
 * Task-generator benchmarks. Prints one JSON line per measurement (medians over repeats, plus the config).
 * Run: node --no-node-snapshot --import tsx bench/tasks/generate.ts [repeats]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SPLIT_SIZES, generateTasks, validateTasksFile, writeTasksJsonl } from '@fathom/tasks';

const repeats = Number(process.argv[2] ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'fathom-bench-tasks-'));

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const round = (value: number, digits = 2): number => Math.round(value * 10 ** digits) / 10 ** digits;

async function main(): Promise<void> {
  const file = join(dir, 'train.jsonl');
  const n = DEFAULT_SPLIT_SIZES.train;

  // 1. The default train split written to disk: the number the 60 s target is about.
  const walls: number[] = [];
  let contextChars = 0;
  let bytes = 0;
  for (let r = 0; r < repeats; r++) {
    contextChars = 0;
    const started = performance.now();
    const written = await writeTasksJsonl(file, generateTasks({ split: 'train', seed: 0 }), (task) => {
      contextChars += task.context.length;
    });
    walls.push((performance.now() - started) / 1000);
    bytes = written.bytes;
  }
  const wall = median(walls);
  console.log(
    JSON.stringify({
      bench: 'tasks.generate.default_train_split',
      config: { split: 'train', n, seed: 0, minTokens: 4096, maxTokens: 200_000, repeats },
      wall_s_median: round(wall),
      wall_s_all: walls.map((w) => round(w)),
      context_mb: round(contextChars / 1e6, 1),
      file_mb: round(bytes / 1e6, 1),
      context_mb_per_s: round(contextChars / 1e6 / wall, 1),
      target_wall_s: 60,
    }),
  );

  // 2. Generation alone (no serialisation or disk): the generator's own throughput.
  const genRates: number[] = [];
  for (let r = 0; r < repeats; r++) {
    let chars = 0;
    const started = performance.now();
    for (const task of generateTasks({ split: 'eval', n: 200, seed: r })) chars += task.context.length;
    genRates.push(chars / 1e6 / ((performance.now() - started) / 1000));
  }
  console.log(
    JSON.stringify({
      bench: 'tasks.generate.in_memory',
      config: { split: 'eval', n: 200, seeds: Array.from({ length: repeats }, (_, r) => r) },
      context_mb_per_s_median: round(median(genRates), 1),
    }),
  );

  // 3. Validation of the written split, answers re-derived by the reference solver.
  const validateWalls: number[] = [];
  let valid = 0;
  for (let r = 0; r < repeats; r++) {
    const started = performance.now();
    valid = (await validateTasksFile(file)).valid;
    validateWalls.push((performance.now() - started) / 1000);
  }
  console.log(
    JSON.stringify({
      bench: 'tasks.validate.default_train_split',
      config: { n, derive: true, repeats },
      wall_s_median: round(median(validateWalls)),
      valid_lines: valid,
      file_mb_per_s: round(bytes / 1e6 / median(validateWalls), 1),
    }),
  );
}

main()
  .finally(() => rmSync(dir, { recursive: true, force: true }))
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
