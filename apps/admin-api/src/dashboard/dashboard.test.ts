import { groupId } from '@fathom/contracts';
import {
  EpisodeRepository,
  EvalRepository,
  RunRepository,
  StepRepository,
  type EpisodeRecord,
  type EvalRow,
} from '@fathom/persistence';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchChromium } from '../test-support/browser';
import { createTestDatabase, startHarness, type Harness, type TestDatabase } from '../test-support/harness';

/**
 * End-to-end: the dashboard in headless chromium against the admin API over a seeded Postgres. Every number the
 * tests look for is one seeded here; screenshots of each page land in test-results/dashboard/.
 */

const TOKEN = 'dashboard-test-token-0123456789';
const SCREENSHOTS = 'test-results/dashboard';
const RUN = 'run-dash';

const STEPS = [
  {
    step: 1,
    rewardMean: 0.125,
    fracRewardZeroStd: 0.5,
    kl: 0.001,
    loss: 0.75,
    clipRatio: 0.1,
    correctness: 0.25,
    format: 1,
    length: 120,
    llmCalls: 2,
    tps: 350.25,
  },
  {
    step: 2,
    rewardMean: 0.375,
    fracRewardZeroStd: 0.25,
    kl: 0.002,
    loss: 0.5,
    clipRatio: 0.05,
    correctness: 0.5,
    format: 1,
    length: 96.5,
    llmCalls: 1.5,
    tps: 402,
  },
  {
    step: 3,
    rewardMean: 0.625,
    fracRewardZeroStd: 0,
    kl: 0.004,
    loss: 0.25,
    clipRatio: 0.02,
    correctness: 0.75,
    format: 0.5,
    length: 80,
    llmCalls: 1,
    tps: 410.5,
  },
];

/** The seeded recursion tree: the root episode, two llm() calls, one of which calls again. */
const TREE = {
  depth: 0,
  kind: 'root',
  prompt: 'What is the vault code?',
  chunkChars: 40000,
  answer: '48213',
  promptTokens: 300,
  completionTokens: 90,
  latencyMs: 1500,
  turns: 3,
  children: [
    {
      depth: 1,
      kind: 'episode',
      prompt: 'Find the code in this part',
      chunkChars: 10000,
      answer: 'not here',
      promptTokens: 120,
      completionTokens: 20,
      latencyMs: 400,
      turns: 2,
      children: [
        {
          depth: 2,
          kind: 'leaf',
          prompt: 'Is 48213 a code?',
          chunkChars: 200,
          answer: 'yes',
          promptTokens: 40,
          completionTokens: 5,
          latencyMs: 55,
          turns: 1,
          children: [],
        },
      ],
    },
    {
      depth: 1,
      kind: 'leaf',
      prompt: 'Does this slice mention a vault?',
      chunkChars: 5000,
      answer: 'vault code is 48213',
      promptTokens: 80,
      completionTokens: 12,
      latencyMs: 230.5,
      turns: 1,
      children: [],
    },
  ],
};

const TASK_TYPES = ['niah', 'counting', 'niah', 'extractive'] as const;
const episodes: EpisodeRecord[] = TASK_TYPES.map((taskType, sampleIndex) => ({
  runId: RUN,
  step: 3,
  groupId: groupId(3, 0),
  sampleIndex,
  taskId: `task-${sampleIndex}`,
  taskType,
  contextTokens: 4096 * (sampleIndex + 1),
  policyVersion: 2,
  status: 'ok',
  reward: sampleIndex === 0 ? 0.95 : 0.25 * sampleIndex,
  rewardComponents: {
    correctness: sampleIndex === 0 ? 1 : 0,
    token_budget: -0.05,
    recursion_efficiency: sampleIndex === 0 ? 0.15 : 0,
    format: 0.1,
  },
  llmCalls: sampleIndex === 0 ? 3 : 0,
  tokens: 500 + sampleIndex,
  turns: 2,
  answer: sampleIndex === 0 ? '48213' : null,
  goldAnswer: '48213',
  transcript: {
    prompt: `Question ${sampleIndex}: What is the vault code? The document is in ctx.`,
    turns: [
      {
        completion: '```js\nconst i = ctx.indexOf("vault");\nprint(ctx.slice(i, i + 40));\n```',
        action: 'code',
        observation: 'vault code is 48213',
      },
      { completion: '<answer>48213</answer>', action: 'answer', observation: null },
    ],
    stopReason: 'answer',
    tokens: { prompt: 180, trained: 64, notTrained: 201, subcall: 277 },
  },
  recursionTree: sampleIndex === 0 ? TREE : { ...TREE, children: [] },
}));

const evalRows: EvalRow[] = [
  ['eval-untrained', 'default', 'all', 'all', 40, 0.25, 900, 0.5],
  ['eval-untrained', 'default', 'niah', '4-16K', 10, 0.5, 850, 0.25],
  ['eval-grpo', 'runs/dash/step-3', 'all', 'all', 40, 0.625, 610.5, 1.25],
  ['eval-grpo', 'runs/dash/step-3', 'niah', '4-16K', 10, 0.75, 600, 1],
  ['eval-grpo', 'runs/dash/step-3', 'counting', '16-64K', 10, 0.375, 700, 2],
].map(([evalId, checkpoint, taskType, lengthBucket, n, accuracy, meanTokens, meanLlmCalls]) => ({
  evalId: evalId as string,
  checkpoint: checkpoint as string,
  split: 'eval',
  taskType: taskType as string,
  lengthBucket: lengthBucket as string,
  n: n as number,
  accuracy: accuracy as number,
  meanTokens: meanTokens as number,
  meanLlmCalls: meanLlmCalls as number,
}));

let db: TestDatabase;
let h: Harness;
let browser: Browser;
let page: Page;

/** Navigates by hash and waits until the page has rendered its data. */
async function open(hash: string, ready: string): Promise<void> {
  // Expressions as strings: the browser's globals are not in this (Node) project's type library.
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
  await page.waitForSelector(`main[data-ready="${ready}"]`);
}

/** Full-page screenshots at laptop and phone widths, and checks that hold on every page. */
async function screenshots(name: string): Promise<void> {
  // Every form control has a label a screen reader can announce.
  const unlabelled = await page.evaluate<string[]>(
    `[...document.querySelectorAll('input, select, textarea')]
      .filter((e) => e.labels.length === 0 && !e.getAttribute('aria-label')).map((e) => e.outerHTML)`,
  );
  expect(unlabelled, `${name}: form controls without a label`).toEqual([]);
  await page.screenshot({ path: `${SCREENSHOTS}/${name}-1280.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  // Charts redraw at the new width on the next frame (ResizeObserver); measure after two frames.
  await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  await page.screenshot({ path: `${SCREENSHOTS}/${name}-390.png`, fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  // Wide tables scroll inside their own region; the page itself must not scroll sideways on a phone.
  expect(overflow, `${name} overflows a 390px viewport by ${overflow}px`).toBeLessThanOrEqual(0);
}

const cellTexts = (selector: string) =>
  page.$$eval(selector, (rows) =>
    rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => (cell.textContent ?? '').trim())),
  );

const missingChromium = chromiumMissing();

// Without chromium (scripts/test.sh installs it when it can) the file reports one skipped test that says why and how
// to install it; scripts/test-summary.mjs lists it in the closing summary, so the skip is never silent.
if (missingChromium !== null)
  it.skip(`SKIPPED (missing dependency): the dashboard in headless chromium: ${missingChromium}`);

describe.skipIf(missingChromium !== null)('the dashboard in headless chromium', () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    db = await createTestDatabase('dashboard');
    const runs = new RunRepository(db.prisma);
    await runs.create({ id: RUN, name: 'dash-seeded', config: { name: 'dash-seeded' } });
    await runs.setStatus(RUN, 'running');
    const steps = new StepRepository(db.prisma);
    for (const s of STEPS) {
      await steps.record({
        runId: RUN,
        step: s.step,
        policyVersion: s.step,
        loss: s.loss,
        kl: s.kl,
        clipRatio: s.clipRatio,
        rewardMean: s.rewardMean,
        rewardStd: 0.1,
        fracRewardZeroStd: s.fracRewardZeroStd,
        groupsSubmitted: 4,
        groupsTrainable: 3,
        tokens: 2000,
        timings: { generation: 2 },
        metrics: { 'completions/mean_length': s.length, llm_calls: s.llmCalls, time: { tokens_per_s: s.tps } },
        components: [
          { component: 'correctness', mean: s.correctness, std: 0.1 },
          { component: 'format', mean: s.format, std: 0 },
        ],
      });
    }
    await new EpisodeRepository(db.prisma).recordMany(episodes);
    const evalRepo = new EvalRepository(db.prisma);
    // Two inserts so the untrained eval is older: the page lists checkpoints in the order they were evaluated.
    await evalRepo.recordMany(evalRows.filter((r) => r.evalId === 'eval-untrained'));
    await evalRepo.recordMany(evalRows.filter((r) => r.evalId === 'eval-grpo'));
    h = await startHarness(db.url, { ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'silent' });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await page.goto(`${h.baseUrl}/`);
    // Without a token the API answers 401, and the dashboard asks for it once per tab.
    await page.getByLabel('Admin token').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('main[data-ready="runs"]');
  });

  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await db?.drop();
  });

  describe('runs page', () => {
    it('lists the seeded run with its status, policy version, step and latest reward', async () => {
      await open('#/runs', 'runs');
      const rows = await cellTexts('main table tbody tr');
      const row = rows.find((r) => r[0] === 'dash-seeded');
      expect(row?.slice(1, 5)).toEqual(['running', '3', '3', '0.625']);
      await screenshots('runs');
    });

    it('moves focus to the content with the skip link, from the keyboard', async () => {
      await page.focus('.skip-link');
      await page.keyboard.press('Enter');
      expect(await page.evaluate<string>('document.activeElement.id')).toBe('main');
    });

    it('shows the API message for a config the schema rejects, starts a valid run, then stops and resumes it', async () => {
      await page.getByLabel('Name').fill('from-the-form');
      await page.getByLabel('Batch size').fill('-1');
      await page.getByRole('button', { name: 'Start run' }).click();
      const error = page.locator('#start-error');
      await error.filter({ hasText: 'batchSize' }).waitFor();
      expect(await error.textContent()).toMatch(/^422: invalid body: body\.batchSize: /);

      await page.getByLabel('Batch size').fill('2');
      await page.getByRole('button', { name: 'Start run' }).click();
      await page.getByRole('status').filter({ hasText: 'Run from-the-form created (pending).' }).waitFor();
      const created = (await new RunRepository(db.prisma).list()).find((r) => r.name === 'from-the-form');
      expect(created?.status).toBe('pending');
      expect((created?.config as { batchSize: number }).batchSize).toBe(2);
      const badge = page.locator(`[data-run-status="${created?.id}"]`);
      expect(await badge.textContent()).toBe('pending');

      await page.getByRole('button', { name: 'Stop run from-the-form' }).click();
      await badge.filter({ hasText: 'stopped' }).waitFor();
      expect((await new RunRepository(db.prisma).get(created!.id))?.status).toBe('stopped');

      // Only a run that started can be resumed (one stopped while pending has nothing to resume): as if the
      // learner had begun it before the stop.
      await db.prisma.run.update({ where: { id: created!.id }, data: { startedAt: new Date() } });
      await page.getByRole('button', { name: 'Resume run from-the-form' }).click();
      await badge.filter({ hasText: 'running' }).waitFor();
      expect((await new RunRepository(db.prisma).get(created!.id))?.status).toBe('running');
    });
  });

  describe('run page', () => {
    it('charts every seeded series exactly, by step', async () => {
      await open(`#/runs/${RUN}`, 'run');
      const expected: Record<string, string[][]> = {
        reward: STEPS.map((s) => [s.rewardMean, s.correctness, s.format].map(String)),
        'frac-zero-std': STEPS.map((s) => [String(s.fracRewardZeroStd)]),
        kl: STEPS.map((s) => [String(s.kl)]),
        loss: STEPS.map((s) => [String(s.loss)]),
        'clip-ratio': STEPS.map((s) => [String(s.clipRatio)]),
        'completion-length': STEPS.map((s) => [String(s.length)]),
        'llm-calls': STEPS.map((s) => [String(s.llmCalls)]),
        'tokens-per-s': STEPS.map((s) => [String(s.tps)]),
      };
      for (const [chart, rows] of Object.entries(expected)) {
        const figure = page.locator(`figure[data-chart="${chart}"]`);
        await figure.locator('summary').click();
        // The data table is built when its <details> opens (the toggle event fires asynchronously).
        await expect
          .poll(() => cellTexts(`figure[data-chart="${chart}"] details table tbody tr`), {
            message: chart,
            timeout: 10_000,
          })
          .toEqual(rows.map((values, i) => [String(STEPS[i].step), ...values]));
      }
      const headers = await page.$$eval('figure[data-chart="reward"] details thead th', (ths) =>
        ths.map((th) => th.textContent),
      );
      expect(headers).toEqual(['step', 'reward (mean)', 'correctness', 'format']);
    });

    it('shows the seeded values in the legend when hovering each step', async () => {
      const over = page.locator('figure[data-chart="reward"] .u-over');
      await over.scrollIntoViewIfNeeded();
      const box = (await over.boundingBox())!;
      for (const [i, s] of STEPS.entries()) {
        // uPlot's x scale spans the first to the last step; the cursor snaps to the nearest point.
        const x = box.x + (i / (STEPS.length - 1)) * (box.width - 1);
        await page.mouse.move(x, box.y + box.height / 2, { steps: 2 });
        await expect
          .poll(async () =>
            (await cellTexts('figure[data-chart="reward"] .u-legend tr.u-series')).map(
              (cells) => cells[cells.length - 1],
            ),
          )
          .toEqual([s.step, s.rewardMean, s.correctness, s.format].map(String));
      }
    });

    it('shows the queue depths', async () => {
      const rows = await cellTexts('section[aria-labelledby="queues-title"] tbody tr');
      expect(rows.map((r) => r[0])).toEqual(['rollout', 'reward', 'learn', 'eval']);
      await screenshots('run');
    });

    it('adds a step recorded while the page is open to the charts (it polls every 5 s)', async () => {
      await new StepRepository(db.prisma).record({
        runId: RUN,
        step: 4,
        policyVersion: 3,
        // No group was trainable: the learner writes 0 here and says so in metrics.updated.
        loss: 0,
        kl: 0,
        clipRatio: 0,
        rewardMean: 0.875,
        rewardStd: 0.1,
        fracRewardZeroStd: 0,
        groupsSubmitted: 4,
        groupsTrainable: 4,
        tokens: 2000,
        timings: {},
        metrics: { updated: false },
        components: [
          { component: 'correctness', mean: 0.875, std: 0.1 },
          { component: 'format', mean: 1, std: 0 },
        ],
      });
      await expect
        .poll(() => cellTexts('figure[data-chart="reward"] details table tbody tr'), { timeout: 15_000, interval: 250 })
        .toContainEqual(['4', '0.875', '0.875', '1']);
      // Step 4 recorded no completion length and made no update: the charts show gaps there, never a made-up value.
      expect(await cellTexts('figure[data-chart="completion-length"] details table tbody tr')).toContainEqual([
        '4',
        '—',
      ]);
      expect(await cellTexts('figure[data-chart="loss"] details table tbody tr')).toContainEqual(['4', '—']);
      expect(await cellTexts('figure[data-chart="kl"] details table tbody tr')).toContainEqual(['4', '—']);
    });

    it('stops the run from its page: running → stopping (the learner finishes the step)', async () => {
      await page.getByRole('button', { name: 'Stop', exact: true }).click();
      await page.locator(`main [data-run-status="${RUN}"]`).filter({ hasText: 'stopping' }).waitFor();
      expect((await new RunRepository(db.prisma).get(RUN))?.status).toBe('stopping');
      expect(await page.getByRole('button', { name: 'Stop', exact: true }).isDisabled()).toBe(true);
    });
  });

  describe('episode explorer', () => {
    it('filters episodes by task type and reward', async () => {
      await open(`#/runs/${RUN}/episodes`, 'episodes');
      expect(await page.locator('main tbody tr').count()).toBe(4);
      await page.getByLabel('Task type').selectOption('niah');
      await page.getByLabel('Reward at least').fill('0.6');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForFunction(`location.hash.includes('taskType=niah')`);
      await page.waitForSelector('main[data-ready="episodes"]');
      const rows = await cellTexts('main tbody tr');
      expect(rows.map((r) => [r[3], r[5]])).toEqual([['niah', '0.95']]);
      await screenshots('episodes');
    });

    it('shows an episode: answer against gold, reward components, turns, and the recursion tree of calls', async () => {
      await page.locator('main tbody tr a').first().click();
      await page.waitForSelector('main[data-ready="episode"]');
      const facts = await page.locator('main dl.facts > *').allTextContents();
      expect(facts.slice(facts.indexOf('Step'), facts.indexOf('Step') + 4)).toEqual([
        'Step',
        '3',
        'Group / sample',
        `${groupId(3, 0)} / 0`,
      ]);
      expect(await page.locator('[data-answer="model"]').textContent()).toBe('48213');
      expect(await page.locator('[data-answer="gold"]').textContent()).toBe('48213');
      expect(await cellTexts('.reward-table tbody tr')).toEqual([
        ['total', '0.95'],
        ['correctness', '1'],
        ['format', '0.1'],
        ['recursion_efficiency', '0.15'],
        ['token_budget', '-0.05'],
      ]);
      expect(await page.locator('[data-token-counts]').textContent()).toBe(
        '64 tokens trained on, 201 not; 277 in llm() calls; stopped by answer.',
      );
      expect(await page.locator('.turns > li').count()).toBe(2);
      expect(await page.locator('.turns > li').first().textContent()).toContain('vault code is 48213');

      const nodes = await page.$$eval('.tree-node', (lis) =>
        lis.map((li) => ({
          depth: li.getAttribute('data-depth'),
          prompt: li.querySelector(':scope > details > summary .node-prompt')?.textContent,
          facts: [...li.querySelectorAll(':scope > details > dl > dd')].map((dd) => dd.textContent),
        })),
      );
      const flat: (typeof TREE)[] = [];
      const walk = (n: typeof TREE) => {
        flat.push(n);
        n.children.forEach((c) => walk(c as typeof TREE));
      };
      walk(TREE);
      expect(nodes).toEqual(
        flat.map((n) => ({
          depth: String(n.depth),
          prompt: n.prompt,
          facts: [
            String(n.depth),
            n.kind,
            `${n.chunkChars} chars`,
            n.answer,
            `${n.promptTokens} prompt + ${n.completionTokens} completion`,
            `${n.latencyMs} ms`,
            String(n.turns),
          ],
        })),
      );
      await screenshots('episode');
    });
  });

  describe('evals page', () => {
    it('compares the checkpoints per task type and length bucket, saying where one was not evaluated', async () => {
      await open('#/evals', 'evals');
      const accuracy = await cellTexts('.eval-accuracy tbody tr');
      expect(accuracy).toEqual([
        ['all', 'all', '0.25 (n=40)', '0.625 (n=40)'],
        ['counting', '16-64K', 'not evaluated', '0.375 (n=10)'],
        ['niah', '4-16K', '0.5 (n=10)', '0.75 (n=10)'],
      ]);
      expect(await cellTexts('.eval-meanTokens tbody tr')).toEqual([
        ['all', 'all', '900', '610.5'],
        ['counting', '16-64K', 'not evaluated', '700'],
        ['niah', '4-16K', '850', '600'],
      ]);
      const headers = await page.$$eval('.eval-accuracy thead th', (ths) => ths.map((th) => th.textContent));
      expect(headers).toEqual(['Task type', 'Length bucket', 'default (eval)', 'runs/dash/step-3 (eval)']);
      await screenshots('evals');
    });
  });
});
