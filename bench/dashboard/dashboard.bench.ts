/**
 * Dashboard benchmark: seeds one run with --steps (1000) steps and --episodes (50,000) episodes, plus eval results,
 * into a fresh Postgres database, starts the admin API on it, and measures
 *   - the API queries behind each page (median of --repeats requests after one warm-up), and
 *   - each page's time to interactive in headless chromium: from navigation start to the moment the page has
 *     rendered its data (the `fathom:ready` performance mark the dashboard sets), median of --loads cold loads
 *     (a fresh browser context each, so nothing is cached), and
 *   - in-app navigation: from the hash change (`fathom:route`) to `fathom:ready`, the modules already loaded.
 *
 *   node --no-node-snapshot --import tsx bench/dashboard/dashboard.bench.ts [--steps 1000] [--episodes 50000]
 *
 * Prints one JSON object per line. The database is dropped at the end, unless --keep names one to keep (and to
 * reuse, without seeding again, on the next run with the same --keep).
 */
import { loadConfig, startAdminApi } from '@fathom/admin-api';
import {
  applyMigrations,
  createPrismaClient,
  dropDatabase,
  ensureDatabase,
  EpisodeRepository,
  EvalRepository,
  type EpisodeRecord,
  RunRepository,
  type PrismaClient,
} from '@fathom/persistence';
import { DEFAULT_REWARD_WEIGHTS, FORMAT_COMPONENT, groupId, median, TASK_TYPES } from '@fathom/contracts';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const { values: args } = parseArgs({
  options: {
    steps: { type: 'string', default: '1000' },
    episodes: { type: 'string', default: '50000' },
    repeats: { type: 'string', default: '7' },
    loads: { type: 'string', default: '5' },
    postgres: { type: 'string', default: process.env.FATHOM_TEST_POSTGRES ?? 'postgresql://postgres@127.0.0.1:5432' },
    redis: { type: 'string', default: process.env.FATHOM_TEST_REDIS ?? 'redis://127.0.0.1:6379' },
    chromium: { type: 'string', default: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
    keep: { type: 'string' },
  },
});
const STEPS = Number(args.steps);
const EPISODES = Number(args.episodes);
const REPEATS = Number(args.repeats);
const LOADS = Number(args.loads);
const RUN = 'run-bench';
const BUCKETS = ['4-16K', '16-64K', '64-200K'];

const print = (record: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(record)}\n`);
const round = (ms: number) => Math.round(ms * 100) / 100;

/** A deterministic stream of numbers in [0, 1), so two runs seed the same data. */
function lcg(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

async function seed(prisma: PrismaClient): Promise<void> {
  const rand = lcg(7);
  await new RunRepository(prisma).create({ id: RUN, name: 'bench', config: { name: 'bench' } });
  await prisma.run.update({ where: { id: RUN }, data: { status: 'running', step: STEPS, policyVersion: STEPS } });
  const steps = Array.from({ length: STEPS }, (_, i) => ({
    runId: RUN,
    step: i + 1,
    policyVersion: i,
    loss: rand(),
    kl: rand() / 100,
    clipRatio: rand() / 10,
    rewardMean: rand(),
    rewardStd: rand() / 2,
    fracRewardZeroStd: rand(),
    groupsSubmitted: 4,
    groupsTrainable: 3,
    tokens: 4000,
    timings: { generation: 10, scoring: 1, update: 5, weight_sync: 1 },
    // The fields the learner writes (libs/training stepRecord), so the payload has a realistic size.
    metrics: {
      'completions/mean_length': 100 + rand() * 100,
      'completions/min_length': 20,
      'completions/max_length': 256,
      llm_calls: rand() * 3,
      sampled_tokens: 4000,
      entropy: rand(),
      grad_norm: rand(),
      learning_rate: 1e-5,
      'clip_ratio/low_mean': rand() / 20,
      'clip_ratio/high_mean': rand() / 20,
      groups: { submitted: 4, trainable: 3, skipped: { zero_std: 1, stale: 0 } },
      status: { ok: 30, truncated: 2, timeout: 0, sandbox_error: 0, infra_error: 0 },
      time: { generation_s: 10, scoring_s: 1, update_s: 5, step_s: 17, tokens_per_s: 300 + rand() * 100 },
    },
  }));
  for (let i = 0; i < steps.length; i += 500) await prisma.step.createMany({ data: steps.slice(i, i + 500) });
  const components = steps.flatMap((s) =>
    [FORMAT_COMPONENT, ...Object.keys(DEFAULT_REWARD_WEIGHTS)].map((component) => ({
      runId: RUN,
      step: s.step,
      component,
      mean: rand(),
      std: rand() / 2,
    })),
  );
  for (let i = 0; i < components.length; i += 2000) {
    await prisma.rewardComponentStat.createMany({ data: components.slice(i, i + 2000) });
  }

  const perStep = Math.ceil(EPISODES / STEPS);
  const groupSize = 8;
  const episodes = new EpisodeRepository(prisma);
  const rows: EpisodeRecord[] = [];
  let written = 0;
  for (let n = 0; n < EPISODES; n++) {
    const step = 1 + Math.floor(n / perStep);
    const within = n % perStep;
    const calls = Math.floor(rand() * 4);
    rows.push({
      runId: RUN,
      step,
      groupId: groupId(step, Math.floor(within / groupSize)),
      sampleIndex: within % groupSize,
      taskId: `task-${step}-${Math.floor(within / groupSize)}`,
      taskType: TASK_TYPES[n % TASK_TYPES.length],
      contextTokens: 4096 * (1 + Math.floor(rand() * 48)),
      policyVersion: step - 1,
      status: 'ok',
      reward: rand(),
      rewardComponents: {
        correctness: rand() < 0.5 ? 1 : 0,
        format: 0.1,
        token_budget: -rand() / 10,
        recursion_efficiency: rand() / 5,
      },
      llmCalls: calls,
      tokens: 200 + Math.floor(rand() * 800),
      turns: 2,
      answer: 'a',
      goldAnswer: 'a',
      transcript: {
        prompt: 'Question: what is the vault code? The document is in ctx. '.repeat(4),
        turns: [
          {
            completion: '```js\nconst i = ctx.indexOf("vault");\nprint(ctx.slice(i, i + 80));\n```',
            action: 'code',
            observation: 'the vault code is 48213, said the keeper',
          },
          { completion: '<answer>48213</answer>', action: 'answer', observation: null },
        ],
      },
      recursionTree: {
        depth: 0,
        kind: 'root',
        prompt: 'what is the vault code?',
        chunkChars: 100000,
        answer: '48213',
        promptTokens: 300,
        completionTokens: 90,
        latencyMs: 1500,
        turns: 2,
        children: Array.from({ length: calls }, (_, c) => ({
          depth: 1,
          kind: 'leaf',
          prompt: `does part ${c} mention a vault?`,
          chunkChars: 20000,
          answer: 'no',
          promptTokens: 50,
          completionTokens: 4,
          latencyMs: 120,
          turns: 1,
          children: [],
        })),
      },
    });
    if (rows.length === 2000 || n === EPISODES - 1) {
      written += await episodes.recordMany(rows);
      rows.length = 0;
    }
  }

  const evals = new EvalRepository(prisma);
  for (const [i, checkpoint] of ['default', 'sft', `grpo-step-${STEPS}`].entries()) {
    await evals.recordMany(
      ['all', ...TASK_TYPES].flatMap((taskType) =>
        ['all', ...BUCKETS].map((lengthBucket) => ({
          evalId: `eval-${i}`,
          checkpoint,
          split: 'eval',
          taskType,
          lengthBucket,
          n: 50,
          accuracy: rand(),
          meanTokens: 500 + rand() * 500,
          meanLlmCalls: rand() * 3,
        })),
      ),
    );
  }
  if (written !== EPISODES) throw new Error(`seeded ${written} episodes, expected ${EPISODES}`);
}

async function timeApi(baseUrl: string, name: string, path: string): Promise<void> {
  const once = async () => {
    const started = performance.now();
    const res = await fetch(`${baseUrl}${path}`);
    const body = await res.arrayBuffer();
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${Buffer.from(body).toString().slice(0, 200)}`);
    return { ms: performance.now() - started, bytes: body.byteLength };
  };
  await once();
  const samples = [];
  for (let i = 0; i < REPEATS; i++) samples.push(await once());
  const ms = samples.map((s) => s.ms);
  print({
    metric: 'api',
    query: name,
    path,
    median_ms: round(median(ms)),
    min_ms: round(Math.min(...ms)),
    max_ms: round(Math.max(...ms)),
    n: REPEATS,
    bytes: samples[0].bytes,
  });
}

async function main(): Promise<void> {
  if (!existsSync(args.chromium)) {
    throw new Error(`chromium is not at ${args.chromium}; run "bash scripts/ensure-chromium.sh" or pass --chromium`);
  }
  const url = `${args.postgres}/${args.keep ?? `fathom_bench_dashboard_${process.pid}`}`;
  if (args.keep === undefined) await dropDatabase(url);
  await ensureDatabase(url);
  const prisma = createPrismaClient(url);
  try {
    await applyMigrations(url);
    if ((await prisma.run.count({ where: { id: RUN } })) === 0) {
      const seedStarted = performance.now();
      await seed(prisma);
      const seconds = round((performance.now() - seedStarted) / 1000);
      print({ metric: 'seed', steps: STEPS, episodes: EPISODES, seconds });
      await prisma.$executeRawUnsafe('ANALYZE');
    }

    // Shared, small machines make every timing noisy; the load says how busy this one was.
    print({ metric: 'machine', when: 'start', cpus: cpus().length, load_average_1m: round(loadavg()[0]) });
    const api = await startAdminApi(
      loadConfig({
        HOST: '127.0.0.1',
        HTTP_PORT: '0',
        DATABASE_URL: url,
        REDIS_URL: args.redis,
        QUEUE_PREFIX: `fathom-bench-dashboard-${process.pid}`,
        LOG_LEVEL: 'silent',
      }),
    );
    const baseUrl = `http://127.0.0.1:${api.port}`;
    try {
      const firstPage = (await (await fetch(`${baseUrl}/runs/${RUN}/episodes?limit=50`)).json()) as {
        items: { id: string }[];
        nextCursor: string;
      };
      const episodeId = firstPage.items[0].id;
      const midStep = Math.ceil(STEPS / 2);
      const queries: [string, string][] = [
        ['runs list (with latest step)', '/runs?limit=200'],
        ['run', `/runs/${RUN}`],
        ['series (all steps, for the charts)', `/runs/${RUN}/series`],
        ['series (poll: nothing new)', `/runs/${RUN}/series?fromStep=${STEPS + 1}`],
        ['steps (all, full rows)', `/runs/${RUN}/steps?limit=5000`],
        ['queues', '/queues'],
        ['openapi (start form defaults)', '/docs/openapi.json'],
        ['episodes: first page', `/runs/${RUN}/episodes?limit=50`],
        ['episodes: next page', `/runs/${RUN}/episodes?limit=50&cursor=${firstPage.nextCursor}`],
        ['episodes: by step', `/runs/${RUN}/episodes?limit=50&step=${midStep}`],
        ['episodes: by task type', `/runs/${RUN}/episodes?limit=50&taskType=counting`],
        ['episodes: by reward range', `/runs/${RUN}/episodes?limit=50&minReward=0.999`],
        ['episodes: by context length', `/runs/${RUN}/episodes?limit=50&minContextTokens=190000`],
        [
          'episodes: all filters, few matches',
          `/runs/${RUN}/episodes?limit=50&taskType=niah&minReward=0.9&minContextTokens=150000&maxContextTokens=160000`,
        ],
        ['episode', `/episodes/${episodeId}`],
        ['evals', '/evals'],
        ['eval', '/evals/eval-2'],
      ];
      for (const [name, path] of queries) await timeApi(baseUrl, name, path);

      const browser = await chromium.launch({ executablePath: args.chromium, headless: true, args: ['--no-sandbox'] });
      try {
        const pages: [string, string, string][] = [
          ['runs', '#/runs', 'runs'],
          ['run (charts)', `#/runs/${RUN}`, 'run'],
          ['episodes', `#/runs/${RUN}/episodes`, 'episodes'],
          ['episodes (filtered)', `#/runs/${RUN}/episodes?taskType=niah&minReward=0.9`, 'episodes'],
          ['episode', `#/episodes/${episodeId}`, 'episode'],
          ['evals', '#/evals', 'evals'],
        ];
        // The floor on this machine: first paint of a page without scripts or data (the API's /docs HTML).
        const floor: number[] = [];
        for (let i = 0; i < LOADS; i++) {
          const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
          const page = await context.newPage();
          await page.goto(`${baseUrl}/docs`);
          await page.waitForFunction("performance.getEntriesByName('first-contentful-paint').length > 0");
          floor.push(
            await page.evaluate<number>("performance.getEntriesByName('first-contentful-paint')[0].startTime"),
          );
          await context.close();
        }
        print({
          metric: 'baseline_first_paint',
          page: '/docs (static HTML, no scripts, no data)',
          median_ms: round(median(floor)),
          min_ms: round(Math.min(...floor)),
          max_ms: round(Math.max(...floor)),
          loads: LOADS,
        });

        for (const [name, hash, ready] of pages) {
          const times: number[] = [];
          for (let i = 0; i < LOADS; i++) {
            const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
            const page = await context.newPage();
            await page.goto(`${baseUrl}/dashboard/${hash}`);
            await page.waitForSelector(`main[data-ready="${ready}"]`, { timeout: 60_000 });
            times.push(
              await page.evaluate<number>("performance.getEntriesByName('fathom:ready', 'mark')[0].startTime"),
            );
            await context.close();
          }
          const ms = median(times);
          print({
            metric: 'time_to_interactive',
            page: name,
            median_ms: round(ms),
            min_ms: round(Math.min(...times)),
            max_ms: round(Math.max(...times)),
            loads: LOADS,
            target_ms: 1000,
            within_target: ms <= 1000,
          });
        }
        // In-app navigation: the modules are loaded, a hash change renders the next page.
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        const page = await context.newPage();
        await page.goto(`${baseUrl}/dashboard/#/runs`);
        await page.waitForSelector('main[data-ready="runs"]');
        for (const [name, hash, ready] of [...pages, ['runs', '#/runs?again', 'runs'] as const]) {
          const times: number[] = [];
          for (let i = 0; i < LOADS; i++) {
            await page.evaluate(`performance.clearMarks(); location.hash = ${JSON.stringify(`#/evals?from=${i}`)}`);
            await page.waitForSelector('main[data-ready="evals"]');
            await page.evaluate(`performance.clearMarks(); location.hash = ${JSON.stringify(hash)}`);
            await page.waitForSelector(`main[data-ready="${ready}"]`, { timeout: 60_000 });
            times.push(
              await page.evaluate<number>(
                "performance.getEntriesByName('fathom:ready', 'mark')[0].startTime - " +
                  "performance.getEntriesByName('fathom:route', 'mark')[0].startTime",
              ),
            );
          }
          print({
            metric: 'in_app_navigation',
            page: name,
            median_ms: round(median(times)),
            min_ms: round(Math.min(...times)),
            max_ms: round(Math.max(...times)),
            loads: LOADS,
          });
        }
        await context.close();
        print({ metric: 'machine', when: 'end', cpus: cpus().length, load_average_1m: round(loadavg()[0]) });
      } finally {
        await browser.close();
      }
    } finally {
      await api.close();
    }
  } finally {
    await prisma.$disconnect();
    if (args.keep === undefined) await dropDatabase(url);
  }
}

await main();
