import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ByteTokenizer, createDefaultModel, ModelGraphs } from '@fathom/model';
import { renderConversation } from '@fathom/rlm';
import { describe, expect, it } from 'vitest';
import { parseSftConfig, type SftConfigInput } from './config';
import { MetricsLog, type MetricsRecord } from './metrics.log';
import { runSft } from './sft.trainer';
import { readPromptStyle } from './prompt-style.file';
import { TEST_STYLE, tinyExample, tinyTasks, writeTinyFixture } from './testing/fixtures';
import { encodeConversation, packBatch, sftTokenWeights } from './tokens';

type Fixture = Awaited<ReturnType<typeof writeTinyFixture>>;

const baseConfig = (f: Fixture, out: string, extra: Partial<SftConfigInput> = {}) =>
  parseSftConfig({
    model: { config: f.modelConfig, initSeed: 1 },
    data: { format: 'conversations', conversations: f.conversations },
    promptStyle: TEST_STYLE,
    rolloutPromptStyle: TEST_STYLE,
    seqLen: 768,
    padMultiple: 64,
    batchSize: 4,
    steps: 6,
    optimizer: { lr: 1e-2, warmupSteps: 2, minLr: 1e-3 },
    evalEvery: 3,
    evalFraction: 0.2,
    checkpointEvery: 2,
    seed: 5,
    out: join(f.dir, out),
    ...extra,
  });

/** The error a run fails with (the test fails if it succeeds). */
async function failure(run: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await run;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('the run succeeded');
}

const withoutTimings = (records: MetricsRecord[]) => records.map(({ step_ms: _, tokens_per_s: __, ...r }) => r);

describe('SFT loss masking', () => {
  it('gives untrained tokens no weight: changing their targets leaves loss and gradients unchanged', async () => {
    const f = await writeTinyFixture(2);
    const model = await createDefaultModel(f.modelConfig, 2);
    const tokenizer = new ByteTokenizer();
    const [task] = tinyTasks(1);
    const prompt = { question: task.question, context: task.context, contextTokens: task.context_tokens };
    const seq = encodeConversation(renderConversation(prompt, tinyExample(task).turns, TEST_STYLE), tokenizer);
    const packed = packBatch([seq], { padId: 259, padMultiple: 64, maxLength: 767 });
    const graphs = new ModelGraphs(model.config);
    const weights = sftTokenWeights(packed);
    const base = await graphs.trainStep(model.params, packed.batch, weights);
    const withTarget = async (position: number) => {
      const targets = Array.from(packed.batch.targets);
      targets[position] = (targets[position] + 1) % 256;
      return graphs.trainStep(model.params, { ...packed.batch, targets }, weights);
    };
    const untrained = packed.targetMask.indexOf(0, 10);
    const trained = packed.targetMask.indexOf(1);
    const changedUntrained = await withTarget(untrained);
    expect(changedUntrained.loss).toBe(base.loss);
    for (const [name, g] of base.grads) expect(changedUntrained.grads.get(name)).toEqual(g);
    expect((await withTarget(trained)).loss).not.toBe(base.loss);
    const nll =
      -Array.from(base.logprobs).reduce((s, lp, i) => s + lp * packed.targetMask[i], 0) / packed.trainedTokens;
    expect(base.loss).toBeCloseTo(nll, 5);
    await graphs.release();
  });
});

describe('runSft', () => {
  it('drives the loss down on a tiny repetitive dataset and writes metrics, checkpoints and the final model', async () => {
    const f = await writeTinyFixture(8);
    const config = baseConfig(f, 'learn', { steps: 40, evalEvery: 20, checkpointEvery: 20 });
    const result = await runSft(config);
    const records = await MetricsLog.read(join(config.out, 'metrics.jsonl'));
    const train = records.filter((r) => r.kind === 'train');
    expect(train.map((r) => r.step)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const mean = (rs: MetricsRecord[]) => rs.reduce((s, r) => s + (r.loss as number), 0) / rs.length;
    expect(mean(train.slice(-5))).toBeLessThan(0.5 * mean(train.slice(0, 5)));
    const evals = records.filter((r) => r.kind === 'eval');
    expect(evals.map((r) => r.step)).toEqual([20, 40]);
    expect(evals[1].eval_loss as number).toBeLessThan(evals[0].eval_loss as number);
    expect(train[0]).toMatchObject({ lr: 5e-3, trained_tokens: expect.any(Number), grad_norm: expect.any(Number) });
    expect(result.checkpointDir).toMatch(/step-000040$/);
    expect(result.data).toMatchObject({ kept: 8, droppedTooLong: 0, train: { tasks: 6 }, heldOut: { tasks: 2 } });
    const state = JSON.parse(await readFile(join(result.checkpointDir, 'training_state.json'), 'utf8'));
    expect(state).toMatchObject({ step: 40, seed: 5, data: { epoch: 26, offset: 4 } });
    expect(JSON.parse(await readFile(join(result.finalDir, 'config.json'), 'utf8')).hidden_size).toBe(32);
    expect(await readPromptStyle(result.finalDir)).toEqual(config.rolloutPromptStyle);
  });

  it('resumed from a checkpoint, writes exactly the metrics and weights of an uninterrupted run', async () => {
    const f = await writeTinyFixture(10);
    const full = await runSft(baseConfig(f, 'full'));
    const config = baseConfig(f, 'interrupted');
    const interrupt = new Error('interrupted after step 5');
    await expect(
      runSft(config, {
        observer: {
          onStep: (r) => {
            if (r.step === 5) throw interrupt;
          },
        },
      }),
    ).rejects.toBe(interrupt);
    let resumedFrom: string | null = null;
    await runSft(config, { resume: true, observer: { onStart: (info) => (resumedFrom = info.resumedFrom) } });
    expect(resumedFrom).toMatch(/step-000004$/);
    const expected = withoutTimings(await MetricsLog.read(join(full.finalDir, '..', 'metrics.jsonl')));
    expect(expected.filter((r) => r.kind === 'eval')).toHaveLength(2);
    expect(withoutTimings(await MetricsLog.read(join(config.out, 'metrics.jsonl')))).toEqual(expected);
    const weights = (dir: string) => readFile(join(dir, 'model.safetensors'));
    expect(Buffer.compare(await weights(join(config.out, 'final')), await weights(full.finalDir))).toBe(0);
  });

  it('refuses to resume with a changed config or without a checkpoint, and to start over a run', async () => {
    const f = await writeTinyFixture(4);
    await runSft(baseConfig(f, 'run', { steps: 2, evalFraction: 0 }));
    await expect(runSft(baseConfig(f, 'run', { steps: 3, evalFraction: 0 }), { resume: true })).rejects.toMatchObject({
      code: 'RESUME_MISMATCH',
      message: expect.stringMatching(/steps differ/),
    });
    await expect(runSft(baseConfig(f, 'run', { steps: 2, evalFraction: 0 }))).rejects.toMatchObject({
      code: 'RUN_EXISTS',
    });
    await expect(runSft(baseConfig(f, 'none'), { resume: true })).rejects.toMatchObject({
      code: 'RESUME_MISMATCH',
    });
  });

  it('pretrains on plain documents (`text` data), every token trained, and names a bad or repeated line', async () => {
    const f = await writeTinyFixture(1);
    const texts = join(f.dir, 'texts.jsonl');
    const doc = (i: number) => ({
      id: `d${i}`,
      text: `The van is Nesnes. The cart is Tarvok. The van is Nesnes. ${i}`,
    });
    await writeFile(texts, Array.from({ length: 12 }, (_, i) => JSON.stringify(doc(i))).join('\n'));
    const config = baseConfig(f, 'text', {
      data: { format: 'text', texts },
      steps: 20,
      evalEvery: 20,
      checkpointEvery: 20,
    });
    const result = await runSft(config);
    const train = (await MetricsLog.read(join(config.out, 'metrics.jsonl'))).filter((r) => r.kind === 'train');
    expect(train[0].trained_tokens).toBe(train[0].tokens);
    expect(train[19].loss as number).toBeLessThan(0.5 * (train[0].loss as number));
    expect(result.data).toMatchObject({ kept: 12, train: { tasks: 10, subcalls: 0 }, heldOut: { tasks: 2 } });

    await writeFile(texts, `${JSON.stringify(doc(0))}\n${JSON.stringify({ id: 'd1' })}\n`);
    await expect(runSft(baseConfig(f, 'bad', { data: { format: 'text', texts } }))).rejects.toMatchObject({
      code: 'INVALID_DATA',
      message: expect.stringContaining(`${texts}:2`),
    });
    await writeFile(texts, `${JSON.stringify(doc(0))}\n${JSON.stringify(doc(0))}\n`);
    await expect(runSft(baseConfig(f, 'twice', { data: { format: 'text', texts } }))).rejects.toMatchObject({
      code: 'INVALID_DATA',
      message: expect.stringContaining(`${texts}:2: duplicate id 'd0'`),
    });
  });

  it('drops and reports conversations over seqLen', async () => {
    const f = await writeTinyFixture(6);
    const tokenizer = new ByteTokenizer();
    const lengths = (await conversationLines(f.conversations)).map(
      (line) => encodeConversation(line.segments, tokenizer).ids.length,
    );
    const seqLen = Math.max(...lengths) - 1;
    const config = baseConfig(f, 'short', { steps: 1, seqLen, evalFraction: 0 });
    const { data } = await runSft(config);
    const over = lengths.filter((n) => n > seqLen).length;
    expect(over).toBeGreaterThan(0);
    expect(data).toMatchObject({ conversations: 6, kept: 6 - over, droppedTooLong: over });
    expect(JSON.parse(await readFile(join(config.out, 'data.json'), 'utf8')).droppedTooLong).toBe(over);
  });
});

async function conversationLines(path: string): Promise<{ segments: { text: string; trained: boolean }[] }[]> {
  return (await readFile(path, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

describe('the prompt preflight', () => {
  it('stops a run whose SFT prompt style differs from the rollout’s, showing the difference', async () => {
    const f = await writeTinyFixture(3);
    const teacher = { format: 'teacher' as const, examples: f.examples, tasks: f.tasks };
    const drift = baseConfig(f, 'drift', { data: teacher, rolloutPromptStyle: { system: 'full', previewChars: 12 } });
    const error = await failure(runSft(drift));
    expect(error.code).toBe('PROMPT_DRIFT');
    expect(error.message).toContain('t0#0');
    expect(error.message).toMatch(/^- ctx is the document \(JS REPL\)/m);
    expect(error.message).toMatch(/^\+ You answer a question about a long document/m);
    const preview = baseConfig(f, 'preview', { rolloutPromptStyle: { system: 'compact', previewChars: 40 } });
    const previewError = await failure(runSft(preview));
    expect(previewError.message).toMatch(/^- ctx: .* It starts: "Notes 0. The"<\|im_end\|>$/m);
    expect(previewError.message).toMatch(
      /^\+ ctx: .* It starts: "Notes 0. The mirror is red. Nothing else"<\|im_end\|>$/m,
    );
  });

  it('lets teacher examples through when the styles agree, rendering them against their tasks', async () => {
    const f = await writeTinyFixture(3);
    const config = baseConfig(f, 'teacher', {
      data: { format: 'teacher', examples: f.examples, tasks: f.tasks },
      steps: 1,
      evalFraction: 0,
    });
    const { data } = await runSft(config);
    expect(data).toMatchObject({ conversations: 3, kept: 3, train: { examples: 3, subcalls: 0 } });
  });

  it('adds each teacher sub-call as a conversation, and names a task missing from the tasks file', async () => {
    const f = await writeTinyFixture(2);
    const [t0, t1] = tinyTasks(2);
    const withSubcall = { ...tinyExample(t0), subcalls: [{ question: t0.question, chunk: t0.context, answer: 'red' }] };
    await writeFile(f.examples, [withSubcall, tinyExample(t1)].map((e) => JSON.stringify(e) + '\n').join(''));
    const config = baseConfig(f, 'subcalls', {
      data: { format: 'teacher', examples: f.examples, tasks: f.tasks },
      steps: 1,
      evalFraction: 0,
    });
    const { data } = await runSft(config);
    expect(data).toMatchObject({ conversations: 3, train: { examples: 3, subcalls: 1 } });
    const noSubcalls = { ...config, out: join(f.dir, 'episodes'), data: { ...config.data, subcalls: false } };
    expect((await runSft(noSubcalls)).data.conversations).toBe(2);
    await writeFile(f.tasks, JSON.stringify(t1) + '\n');
    await expect(runSft({ ...config, out: join(f.dir, 'missing') })).rejects.toThrow(
      /sft.jsonl:1: task 't0' is not in/,
    );
  });
});
