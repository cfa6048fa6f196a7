import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { applyMigrations, createPrismaClient, dropDatabase, ensureDatabase, EvalRepository } from '@fathom/persistence';
import { OpenAiTestServer, type EvalEpisode, type EvalSuiteReport, type OpenAiUsage } from '@fathom/rlm';
import { generateTasks, writeTasksJsonl } from '@fathom/tasks';
import { loadPolicy, type LoadedPolicy } from '@fathom/training';
import { evalCommand } from './eval.command';

const checkpoint = fileURLToPath(new URL('../../../data/checkpoints/default', import.meta.url));
const bin = fileURLToPath(new URL('../bin/fathom', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fathom-cli-eval-'));
const tasksFile = join(dir, 'tasks.jsonl');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** Runs `fathom eval …` in this process and returns what it printed to stdout. */
async function runEval(...args: string[]): Promise<string> {
  const printed: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void printed.push(parts.join(' ')));
  // A refused option throws (asserted by the caller); commander's own copy of the message is not printed.
  await evalCommand()
    .exitOverride()
    .configureOutput({ writeErr: () => undefined })
    .parseAsync(args, { from: 'user' });
  return printed.join('\n');
}

describe('fathom eval', () => {
  it('reports the default policy and its three baselines on the same tasks, with every episode in a JSONL file', async () => {
    await writeTasksJsonl(
      tasksFile,
      generateTasks({ split: 'heldout', n: 3, seed: 5, minTokens: 1024, maxTokens: 4096 }),
    );
    const [out, episodes] = [join(dir, 'report.json'), join(dir, 'episodes.jsonl')];
    const printed = await runEval(
      ...['--checkpoint', checkpoint, '--tasks', tasksFile, '--max-turns', '2', '--max-turn-tokens', '96'],
      ...['--out', out, '--episodes', episodes, '--no-progress'],
    );
    expect(printed).toMatch(/^group\s+n\s+policy\s+regex\s+no-llm\s+oracle$/m);
    expect(printed).toMatch(/^overall\s+3\s+[\d.]+%\s+[\d.]+%\s+[\d.]+%\s+[\d.]+%$/m);
    expect(printed).toMatch(/^oracle overall\s+3\s/m);

    const report = JSON.parse(readFileSync(out, 'utf8')) as EvalSuiteReport & { tasksFile: string };
    expect(report.tasksFile).toBe(tasksFile);
    expect(report.systems.map((s) => [s.system, s.runs.length, s.runs[0].tasks.length])).toEqual([
      ['policy', 1, 3],
      ['regex', 1, 3],
      ['no-llm', 1, 3],
      ['oracle', 1, 3],
    ]);
    const records = readFileSync(episodes, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as EvalEpisode & { system: string });
    expect(records).toHaveLength(12);
    const policyRecords = records.filter((r) => r.system === 'policy');
    expect(policyRecords.every((r) => r.turns.length >= 1 && typeof r.turns[0].completion === 'string')).toBe(true);
    expect(policyRecords.map((r) => r.correct)).toEqual(report.systems[0].runs[0].tasks.map((t) => t.correct));
  }, 60_000);

  it('the default model writes a working question-only program: every episode reads with llm()', async () => {
    const oneKey = join(dir, 'one-key.jsonl');
    await writeTasksJsonl(
      oneKey,
      generateTasks({
        split: 'heldout',
        n: 3,
        seed: 6,
        minTokens: 1024,
        maxTokens: 4096,
        mix: { niah: 1, extractive: 1, tracking: 1 },
      }),
    );
    const [out, episodes] = [join(dir, 'one-key.json'), join(dir, 'one-key-episodes.jsonl')];
    await runEval(
      ...['--checkpoint', checkpoint, '--tasks', oneKey],
      ...['--max-turns', '2', '--baselines', 'oracle,no-llm', '--out', out, '--episodes', episodes, '--no-progress'],
    );
    const records = readFileSync(episodes, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as EvalEpisode & { system: string });
    const policy = records.filter((r) => r.system === 'policy');
    expect(policy).toHaveLength(3);
    for (const r of policy) {
      expect(r.turns[0].completion).toContain('search(question)');
      expect(r.calls.length, r.taskId).toBeGreaterThan(0);
    }
    // The same program with a gold reader answers every task, and without llm() none: the answers are read.
    const report = JSON.parse(readFileSync(out, 'utf8')) as EvalSuiteReport;
    const accuracy = (system: string) =>
      report.systems.find((s) => s.system === system)?.runs[0].tasks.filter((t) => t.correct).length;
    expect([accuracy('oracle'), accuracy('no-llm')]).toEqual([3, 0]);
  }, 60_000);

  it('measures leaf reads alone with --n 0 --readers, in the table and the JSON report', async () => {
    const out = join(dir, 'readers.json');
    const printed = await runEval(
      '--checkpoint',
      checkpoint,
      '--n',
      '0',
      '--readers',
      '4',
      '--readers-max-chunk',
      '400',
      '--out',
      out,
      '--no-progress',
    );
    expect(printed).toMatch(/^leaf reads \(greedy, seed 0\)$/m);
    expect(printed).toMatch(/^\| all \| [\d.]+% \(\d\/4\) \|$/m);
    const report = JSON.parse(readFileSync(out, 'utf8')) as {
      readers: { overall: { n: number }; mistakes: { chunkChars: number }[] }[];
      systems?: unknown;
    };
    expect(report.readers.map((r) => r.overall.n)).toEqual([4]);
    expect(report.readers[0].mistakes.every((m) => m.chunkChars <= 400)).toBe(true);
    expect(report.systems).toBeUndefined();
  }, 60_000);

  it('measures leaf reads on a reader file (--readers-file, its first n with --readers n) or on recall drills', async () => {
    const file = join(dir, 'readers.jsonl');
    const read = (question: string, chunk: string, answer: string) =>
      JSON.stringify({ question, chunk, answer, type: 'niah', family: 'train', distractors: [] });
    writeFileSync(
      file,
      [
        read('What is the code of the tin cup?', 'The code of the tin cup is K2-PL4.', 'K2-PL4'),
        read('What is the code of the oak box?', 'The code of the oak box is Z9-QQ1.', 'Z9-QQ1'),
        read('What is the code of the red jar?', 'Nothing here.', 'unknown'),
      ].join('\n') + '\n',
    );
    const out = join(dir, 'readers-file.json');
    const args = ['--checkpoint', checkpoint, '--n', '0', '--readers-file', file, '--no-progress'];
    const printed = await runEval(...args, '--extractive-reads', '--out', out);
    expect(printed).toMatch(/^\| all \| [\d.]+% \(\d\/3\) \|$/m);
    expect(printed).toMatch(/^\| gold "unknown" \| [\d.]+% \(\d\/1\) \|$/m);
    const report = JSON.parse(readFileSync(out, 'utf8')) as { readers: { overall: { n: number } }[] };
    expect(report.readers.map((r) => r.overall.n)).toEqual([3]);
    expect(await runEval(...args, '--readers', '2')).toMatch(/^\| all \| [\d.]+% \(\d\/2\) \|$/m);
    await expect(runEval(...args, '--readers-shared')).rejects.toThrow(/reads its own chunks/);
    await expect(runEval(...args, '--readers-recall')).rejects.toThrow(/reads its own chunks/);
    const recall = ['--checkpoint', checkpoint, '--n', '0', '--readers', '3', '--readers-recall', '--no-progress'];
    expect(await runEval(...recall)).toMatch(/^\| type recall \| [\d.]+% \(\d\/3\) \|$/m);
    await expect(runEval(...recall, '--readers-key-only')).rejects.toThrow(/give one of/);
    writeFileSync(file, '');
    await expect(runEval(...args)).rejects.toThrow(/readers\.jsonl: no reader examples/);
    writeFileSync(file, '{"question": "Q?"}\n');
    await expect(runEval(...args)).rejects.toThrow(/readers\.jsonl:1/);
  }, 60_000);

  it('exits non-zero naming the cause when every episode failed for infrastructure reasons (the endpoint is down)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const out = join(dir, 'down.json');
    const args = ['eval', '--policy', `openai:http://127.0.0.1:${port}/v1#m`, '--n', '2', '--baselines', 'none'];
    const run = spawnSync(bin, [...args, '--out', out, '--no-progress'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect(run.status).toBe(1);
    const url = `POST http://127.0.0.1:${port}/v1/chat/completions`;
    // The distinct causes once, not once per episode; the report is still written for a closer look.
    expect(run.stderr).toBe(
      'fathom: no episode could be scored for infrastructure reasons\n' +
        'policy: all 2 episodes ended in infra_error:\n' +
        `  policy_error: ${url}: network error: connect ECONNREFUSED 127.0.0.1:${port} (gave up after 3 attempts)\n`,
    );
    const report = JSON.parse(readFileSync(out, 'utf8')) as EvalSuiteReport;
    expect(report.systems[0].runs[0].overall).toMatchObject({ n: 2, scored: 0, excluded: 2 });
  }, 60_000);

  it('refuses several seeds when greedy and an unknown baseline', async () => {
    await expect(runEval('--checkpoint', checkpoint, '--seeds', '0,1')).rejects.toThrow(/needs --mode sampled/);
    await expect(runEval('--checkpoint', checkpoint, '--baselines', 'regex,judge')).rejects.toThrow(/unknown judge/);
  });
});

describe('fathom eval with a model on an OpenAI-compatible server', () => {
  let served: LoadedPolicy;
  let server: OpenAiTestServer;
  const databaseUrl = `${process.env.FATHOM_TEST_POSTGRES ?? 'postgresql://postgres@127.0.0.1:5432'}/fathom_test_cli_eval_${process.pid}`;
  beforeAll(async () => {
    served = await loadPolicy(checkpoint);
    server = await OpenAiTestServer.start({ policy: served.policy, model: 'fathom-default' });
    await dropDatabase(databaseUrl);
    await ensureDatabase(databaseUrl);
    await applyMigrations(databaseUrl);
  });
  afterAll(async () => {
    await server.close();
    await served.release();
    await dropDatabase(databaseUrl);
  });

  type EndpointReport = { checkpoint: string; endpoints: (OpenAiUsage & { role: string; label: string })[] };

  it('--policy openai:URL#MODEL runs a heldout evaluation with the endpoint writing every turn, tokens counted and recorded', async () => {
    server.requests.length = 0;
    const out = join(dir, 'openai-policy.json');
    const printed = await runEval(
      ...[
        '--policy',
        server.spec,
        '--split',
        'heldout',
        '--n',
        '3',
        '--baselines',
        'none',
        '--prompt-style',
        'compact',
      ],
      ...['--max-turns', '2', '--max-turn-tokens', '96', '--out', out, '--no-progress'],
      ...['--record', '--database-url', databaseUrl],
    );
    const label = `openai:fathom-default@${server.baseUrl}`;
    const report = JSON.parse(readFileSync(out, 'utf8')) as EvalSuiteReport & EndpointReport & { recorded: string[] };
    expect(report.checkpoint).toBe(label);
    expect(report.systems.map((s) => [s.system, s.runs[0].tasks.length])).toEqual([['policy', 3]]);
    expect(report.systems[0].runs[0].tasks.every((t) => t.status !== 'infra_error')).toBe(true);

    const [usage] = report.endpoints;
    expect(report.endpoints).toHaveLength(1);
    expect(usage).toMatchObject({ role: 'policy', label, requests: server.requests.length, retries: 0 });
    expect(usage.requests).toBeGreaterThanOrEqual(3);
    expect(usage.promptTokens).toBeGreaterThan(0);
    expect(usage.completionTokens).toBeGreaterThan(0);
    expect(
      server.requests.every((r) => r.model === 'fathom-default' && r.temperature === 0 && r.max_tokens <= 96),
    ).toBe(true);
    expect(printed).toMatch(/^overall\s+3\s+[\d.]+%$/m);
    expect(printed).toContain(
      `policy endpoint ${label}: ${usage.requests} requests (0 retries), ${usage.promptTokens} prompt + ` +
        `${usage.completionTokens} completion tokens`,
    );

    // The rows the dashboard's eval comparison reads, under the endpoint's label.
    const prisma = createPrismaClient(databaseUrl);
    try {
      const rows = await new EvalRepository(prisma).list({ checkpoint: label });
      expect(new Set(rows.map((r) => r.evalId))).toEqual(new Set(report.recorded));
      expect(report.recorded).toHaveLength(1);
      const overall = rows.find((r) => r.taskType === 'all' && r.lengthBucket === 'all');
      expect(overall).toMatchObject({ split: 'heldout', n: 3, accuracy: report.systems[0].runs[0].overall.accuracy });
    } finally {
      await prisma.$disconnect();
    }
    expect(printed).toContain(`recorded eval ${report.recorded[0]} of ${label} (seed 0,`);
  }, 120_000);

  it('--set overrides an episode setting by its path, after the flags, and refuses a bad one before loading a model', async () => {
    const out = join(dir, 'set.json');
    await runEval(
      ...['--checkpoint', checkpoint, '--n', '0', '--max-turns', '2', '--set', 'maxTurns=3'],
      ...['--set', 'subcalls.maxTurns=1', '--out', out, '--no-progress'],
    );
    const report = JSON.parse(readFileSync(out, 'utf8')) as { episode: unknown };
    expect(report.episode).toMatchObject({ maxTurns: 3, maxTokensPerTurn: 512, subcalls: { maxTurns: 1 } });
    const nowhere = join(dir, 'no-checkpoint');
    await expect(runEval('--checkpoint', nowhere, '--set', 'maxTurnz=3')).rejects.toThrow(
      /^override maxTurnz: unknown key "maxTurnz"; valid keys: .*maxTurns/,
    );
    await expect(runEval('--checkpoint', nowhere, '--set', 'sampling.topK=0.5')).rejects.toThrow(
      'override sampling.topK: expected an integer, got "0.5"',
    );
    await expect(runEval('--checkpoint', nowhere, '--max-turns', '3', '--set', 'maxEpisodeTokens=0')).rejects.toThrow(
      /maxEpisodeTokens/,
    );
  }, 60_000);

  it('--subcalls sends leaf llm() reads to the endpoint while the checkpoint writes the turns', async () => {
    server.requests.length = 0;
    const out = join(dir, 'openai-subcalls.json');
    await runEval(
      ...['--checkpoint', checkpoint, '--subcalls', server.spec, '--reader-window', '2000', '--n', '2'],
      ...['--baselines', 'none', '--max-turns', '2', '--max-turn-tokens', '96', '--readers', '2', '--out', out],
      '--no-progress',
    );
    const report = JSON.parse(readFileSync(out, 'utf8')) as EndpointReport & { episode: { subcalls: unknown } };
    expect(report.checkpoint).toBe(checkpoint);
    expect(report.episode.subcalls).toMatchObject({ readerWindowChars: 2000, extractive: false });
    expect(report.endpoints).toEqual([
      expect.objectContaining({ role: 'subcalls', requests: server.requests.length, label: expect.any(String) }),
    ]);
    // The two reader examples at least, and only leaf reads: every request is the sub-call prompt.
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    for (const request of server.requests) {
      expect(request.messages[0]).toEqual({ role: 'system', content: 'Answer the question about the text briefly.' });
    }
  }, 120_000);

  it('--reader-checkpoint answers leaf reads with a local checkpoint, extractively, while the endpoint writes the turns', async () => {
    server.requests.length = 0;
    const out = join(dir, 'reader-checkpoint.json');
    await runEval(
      ...['--policy', server.spec, '--reader-checkpoint', checkpoint, '--n', '0', '--readers', '3'],
      ...['--extractive-reads', '--out', out, '--no-progress'],
    );
    // An endpoint refuses extractive reads, so the three reads ran on the local checkpoint, and nothing was sent.
    const report = JSON.parse(readFileSync(out, 'utf8')) as {
      readerCheckpoint: string;
      readers: { overall: { n: number } }[];
    };
    expect(report.readerCheckpoint).toBe(checkpoint);
    expect(report.readers[0].overall.n).toBe(3);
    expect(server.requests).toHaveLength(0);
    await expect(
      runEval('--checkpoint', checkpoint, '--subcalls', server.spec, '--reader-checkpoint', checkpoint, '--n', '0'),
    ).rejects.toThrow(/--subcalls or --reader-checkpoint, not both/);
  }, 60_000);

  it('takes at most one of --checkpoint and --policy, a well-formed spec, and tasks to --record', async () => {
    await expect(runEval('--policy', server.spec, '--n', '0', '--record')).rejects.toThrow(/--record needs tasks/);
    await expect(runEval('--checkpoint', checkpoint, '--policy', server.spec, '--n', '1')).rejects.toThrow(
      /give --checkpoint <dir> or --policy openai:URL#MODEL, not both/,
    );
    await expect(runEval('--policy', 'openai:http://127.0.0.1:1/v1')).rejects.toThrow(
      /'--policy .*the model is missing/,
    );
    await expect(runEval('--checkpoint', checkpoint, '--subcalls', 'vllm:x')).rejects.toThrow(
      /'--subcalls .*must start with "openai:"/,
    );
  });
});
