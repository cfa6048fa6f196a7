import * as grpc from '@grpc/grpc-js';
import {
  createDefaultModel,
  DEFAULT_CONFIG_PATH,
  generate,
  HashedWordTokenizer,
  loadCheckpoint,
  ModelGraphs,
  saveCheckpoint,
  type Checkpoint,
} from '@fathom/model';
import { createLogger } from '@fathom/observability';
import { loadConfig as loadEnvServiceConfig, startEnvService, type RunningEnvService } from '@fathom/env-service';
import { renderPrompt, renderSubcallPrompt, segmentsText } from '@fathom/rlm';
import { loadService } from '@fathom/rpc';
import { loadPolicy, PAIRED_READER_DIR } from '@fathom/training';
import { sftWarmStart, TEST_STYLE, tinyTasks } from '@fathom/training/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointModelLoader } from './inference.model';
import { InferenceService } from './inference.service';
import { startInferenceServer, type InferenceServerHandle } from './inference.server';

/** Generate's request and reply as a client sends and receives them (proto/inference.proto). */
interface Request {
  prompt?: string;
  max_tokens?: number;
  temperature?: number;
  stop?: string[];
  seed?: number;
}
interface Reply {
  text?: string;
  prompt_tokens?: number;
  completion_tokens?: number;
  finish_reason?: string;
}
/** ReadSpan's request and reply, likewise. */
interface ReadRequest {
  question?: string;
  chunk?: string;
  temperature?: number;
  seed?: number;
}
interface ReadReply {
  text?: string;
  answered?: boolean;
  start?: number;
  end?: number;
  logprob?: number;
  prompt_tokens?: number;
}

const logger = createLogger({ service: 'inference-test', level: 'silent' });

class Client {
  private readonly client: InstanceType<ReturnType<typeof inferenceCtor>>;
  constructor(port: number) {
    const Inference = inferenceCtor();
    this.client = new Inference(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  }
  generate(request: Request, deadlineMs = 60_000): Promise<Reply> {
    return new Promise((resolve, reject) =>
      this.client.Generate(request, { deadline: Date.now() + deadlineMs }, (error, reply) =>
        error ? reject(error) : resolve(reply ?? {}),
      ),
    );
  }
  describe(): Promise<{ span_reader?: boolean }> {
    return new Promise((resolve, reject) =>
      this.client.Describe({}, { deadline: Date.now() + 60_000 }, (error, reply) =>
        error ? reject(error) : resolve(reply ?? {}),
      ),
    );
  }
  readSpan(request: ReadRequest): Promise<ReadReply> {
    return new Promise((resolve, reject) =>
      this.client.ReadSpan(request, { deadline: Date.now() + 60_000 }, (error, reply) =>
        error ? reject(error) : resolve(reply ?? {}),
      ),
    );
  }
  refusal(request: Request): Promise<grpc.ServiceError> {
    return refused(this.generate(request));
  }
  readRefusal(request: ReadRequest): Promise<grpc.ServiceError> {
    return refused(this.readSpan(request));
  }
  close(): void {
    this.client.close();
  }
}

function refused(reply: Promise<unknown>): Promise<grpc.ServiceError> {
  return reply.then(
    (answered) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(answered)}`);
    },
    (error: grpc.ServiceError) => error,
  );
}

function inferenceCtor() {
  return loadService('inference.proto', 'fathom.inference.v1.Inference');
}

const QUESTION = 'What colour is the lamp?';
const CHUNK = 'The lamp is red.';
const SUBCALL = `let said; try { said = llm(${JSON.stringify(QUESTION)}, ${JSON.stringify(CHUNK)}); } catch (e) { said = "error: " + e.message; } print(JSON.stringify(said));`;

/** An env-service whose llm() calls go to the Inference server on `inferencePort`; closed with `started`. */
async function envService(inferencePort: number, started: RunningEnvService[]): Promise<string> {
  const service = await startEnvService(
    loadEnvServiceConfig({
      HOST: '127.0.0.1',
      HTTP_PORT: '0',
      GRPC_PORT: '0',
      INFERENCE_ADDRESS: `127.0.0.1:${inferencePort}`,
      LLM_MAX_TOKENS: '16',
      LLM_TEMPERATURE: '0',
      LOG_LEVEL: 'silent',
      SANDBOX_WORKERS: '1',
    }),
  );
  started.push(service);
  return `http://127.0.0.1:${service.httpPort}`;
}

/** The observation fields these tests read (OpenEnv reply `{observation, reward, done}`). */
interface Observation {
  episode_id: string;
  stdout: string;
  llm_calls: number;
}

async function post(url: string, body: unknown): Promise<{ observation: Observation }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { observation: Observation };
}

/** One episode whose only step calls llm(QUESTION, CHUNK) and prints what it returned or threw. */
async function subcall(baseUrl: string): Promise<{ said: string; llmCalls: number }> {
  const reset = await post(`${baseUrl}/reset`, { context: `Notes. ${CHUNK}`, question: QUESTION, answer: 'red' });
  const id = reset.observation.episode_id;
  const step = await post(`${baseUrl}/step`, { episode_id: id, action: { code: SUBCALL } });
  return { said: JSON.parse(step.observation.stdout.trim()) as string, llmCalls: step.observation.llm_calls };
}

/** The root prompt of a tiny task, as the SFT fixture trained on: the model answers it with a long code turn. */
const prompt = segmentsText(renderPrompt({ ...tinyTasks(1)[0], contextTokens: 12 }, TEST_STYLE));

describe('gRPC Inference served by the rollout worker', () => {
  let checkpointDir: string;
  let checkpoint: Checkpoint;
  let server: InferenceServerHandle;
  let missing: InferenceServerHandle;
  let client: Client;
  let missingClient: Client;
  const missingDir = join(import.meta.dirname, 'no-such-checkpoint');

  beforeAll(async () => {
    checkpointDir = (await sftWarmStart()).sftFinal;
    checkpoint = await loadCheckpoint(checkpointDir);
    server = await startInferenceServer({
      host: '127.0.0.1',
      port: 0,
      load: checkpointModelLoader(checkpointDir),
      logger,
    });
    missing = await startInferenceServer({
      host: '127.0.0.1',
      port: 0,
      load: checkpointModelLoader(missingDir),
      logger,
    });
    client = new Client(server.port);
    missingClient = new Client(missing.port);
  }, 120_000);

  afterAll(async () => {
    client?.close();
    missingClient?.close();
    await server?.close();
    await missing?.close();
  });

  it('answers with what libs/model samples from the checkpoint, the same again for the same seed', async () => {
    const request = { prompt, max_tokens: 24, temperature: 0, seed: 3 };
    const reply = await client.generate(request);
    const ids = checkpoint.tokenizer!.encode(prompt);
    const decoder = new ModelGraphs(checkpoint.config).decoder(checkpoint.params);
    const [direct] = await generate(
      decoder,
      ids,
      { maxNewTokens: 24, temperature: 0, seed: 3, stopTokens: checkpoint.config.eosTokenIds },
      checkpoint.tokenizer!,
    );
    await decoder.release();
    expect(direct.finishReason).toBe('length');
    expect(reply).toEqual({
      text: direct.text,
      prompt_tokens: ids.length,
      completion_tokens: 24,
      finish_reason: 'length',
    });
    expect(await client.generate(request)).toEqual(reply);

    const sampled = { prompt, max_tokens: 24, temperature: 1, seed: 11 };
    const first = await client.generate(sampled);
    expect(first.completion_tokens).toBeGreaterThan(0);
    expect(await client.generate(sampled)).toEqual(first);
  });

  it('ends at a stop string and leaves it out', async () => {
    const full = (await client.generate({ prompt, max_tokens: 24, temperature: 0 })).text ?? '';
    const stop = full.slice(4, 7);
    expect(stop).toHaveLength(3);
    const reply = await client.generate({ prompt, max_tokens: 24, temperature: 0, stop: ['never printed', stop] });
    expect(reply.text).toBe(full.slice(0, full.indexOf(stop)));
    expect(reply.finish_reason).toBe('stop');
    expect(reply.completion_tokens).toBeLessThan(24);
  });

  it('refuses bad requests with INVALID_ARGUMENT naming the field, and keeps serving', async () => {
    const empty = await client.refusal({ prompt: '', max_tokens: 8 });
    expect([empty.code, empty.details]).toEqual([grpc.status.INVALID_ARGUMENT, 'prompt is empty']);
    const noTokens = await client.refusal({ prompt });
    expect([noTokens.code, noTokens.details]).toEqual([
      grpc.status.INVALID_ARGUMENT,
      'max_tokens must be at least 1, got 0',
    ]);
    const context = checkpoint.config.maxPositions;
    const long = await client.refusal({ prompt: 'x'.repeat(context + 10), max_tokens: 8 });
    expect(long.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(long.details).toBe(
      `prompt is ${context + 10} tokens; the model's context holds ${context}, so a prompt may have at most ${context - 1}`,
    );
    expect((await client.generate({ prompt, max_tokens: 2, temperature: 0 })).completion_tokens).toBe(2);
  });

  it('says the checkpoint has no span reader, and refuses ReadSpan FAILED_PRECONDITION naming it', async () => {
    expect(await client.describe()).toEqual({ span_reader: false });
    const error = await client.readRefusal({ question: QUESTION, chunk: CHUNK });
    expect(error.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(error.details).toBe(
      `inference checkpoint ${checkpointDir} has no span reader (neither a span head nor a paired reader in ` +
        `${join(checkpointDir, PAIRED_READER_DIR)}), so it answers llm() reads with Generate only`,
    );
    const missingModel = await refused(missingClient.describe());
    expect(missingModel.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(missingModel.details).toContain(`inference checkpoint folder ${missingDir} does not exist`);
  });

  it('answers FAILED_PRECONDITION naming a checkpoint folder that does not exist', async () => {
    const error = await missingClient.refusal({ prompt, max_tokens: 8 });
    expect(error.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(error.details).toContain(`inference checkpoint folder ${missingDir} does not exist`);
  });

  it('skips a request whose caller gave up while it waited its turn, and answers the next', async () => {
    const lines: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const gated = await startInferenceServer({
      host: '127.0.0.1',
      port: 0,
      load: () => gate.then(checkpointModelLoader(checkpointDir)),
      logger: createLogger({ service: 'inference-test', level: 'debug', write: (line) => lines.push(line) }),
    });
    const gatedClient = new Client(gated.port);
    try {
      const request = { prompt, max_tokens: 4, temperature: 0, seed: 1 };
      // The first waits for the model, the second waits behind it; both callers give up before the model loads.
      const first = gatedClient.generate(request, 300).catch((error: grpc.ServiceError) => error);
      const second = gatedClient.generate(request, 300).catch((error: grpc.ServiceError) => error);
      expect((await first) as grpc.ServiceError).toMatchObject({ code: grpc.status.DEADLINE_EXCEEDED });
      expect((await second) as grpc.ServiceError).toMatchObject({ code: grpc.status.DEADLINE_EXCEEDED });
      open();
      expect((await gatedClient.generate(request)).completion_tokens).toBeGreaterThan(0);
      const refusals = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((r) => r.code === 'CANCELLED');
      expect(refusals).toHaveLength(1);
      expect(refusals[0]).toMatchObject({ method: '/fathom.inference.v1.Inference/Generate' });
    } finally {
      gatedClient.close();
      await gated.close();
    }
  });

  describe("the env-service's llm() with INFERENCE_ADDRESS at this server", () => {
    const started: RunningEnvService[] = [];

    afterAll(async () => {
      for (const service of started) await service.close();
    });

    it('returns the served completion of the rendered sub-call prompt to the guest: no span reader, so generated', async () => {
      const direct = await client.generate({
        prompt: segmentsText(renderSubcallPrompt(QUESTION, CHUNK)),
        max_tokens: 16,
        temperature: 0,
      });
      const { said, llmCalls } = await subcall(await envService(server.port, started));
      expect(said).toBe(direct.text);
      expect(llmCalls).toBe(1);
    }, 60_000);

    it('raises an error in the guest naming the missing checkpoint folder', async () => {
      const { said } = await subcall(await envService(missing.port, started));
      expect(said).toMatch(/^error: llm\(\) failed: .*FAILED_PRECONDITION/);
      expect(said).toContain(missingDir);
    }, 60_000);
  });
});

describe('gRPC Inference over a checkpoint with a span reader', () => {
  const READER_CONFIG = join(dirname(DEFAULT_CONFIG_PATH), 'reader.json');
  const started: RunningEnvService[] = [];
  let dir: string;
  let readerDir: string;
  let server: InferenceServerHandle;
  let client: Client;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fathom-inference-reader-'));
    // A fresh reader reads something arbitrary but deterministic: a span of the chunk, or "unknown".
    readerDir = join(dir, 'reader-checkpoint');
    await saveCheckpoint(readerDir, await createDefaultModel(READER_CONFIG, 0, new HashedWordTokenizer(16384)));
    server = await startInferenceServer({ host: '127.0.0.1', port: 0, load: checkpointModelLoader(readerDir), logger });
    client = new Client(server.port);
  }, 120_000);

  afterAll(async () => {
    for (const service of started) await service.close();
    client?.close();
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a leaf as the checkpoint read in process (loadPolicy) reads it, the same again for the same seed', async () => {
    expect(await client.describe()).toEqual({ span_reader: true });
    const local = await loadPolicy(readerDir);
    try {
      for (const [temperature, seed] of [
        [0, 0],
        [1, 7],
      ]) {
        const reply = await client.readSpan({ question: QUESTION, chunk: CHUNK, temperature, seed });
        const { input, ...direct } = await local.policy.readSpan!({
          question: QUESTION,
          chunk: CHUNK,
          temperature,
          seed,
        });
        expect(input).toBeDefined();
        expect(reply).toEqual({
          text: direct.text,
          answered: direct.answered,
          start: direct.start,
          end: direct.end,
          logprob: expect.closeTo(direct.logprob, 5),
          prompt_tokens: direct.promptTokens,
        });
        expect(reply.answered ? CHUNK.includes(reply.text!) : reply.text === 'unknown').toBe(true);
        expect(await client.readSpan({ question: QUESTION, chunk: CHUNK, temperature, seed })).toEqual(reply);
      }
    } finally {
      await local.release();
    }
  });

  it('refuses a bad temperature and a chunk longer than the reader holds with INVALID_ARGUMENT', async () => {
    const cold = await client.readRefusal({ question: QUESTION, chunk: CHUNK, temperature: -1 });
    expect([cold.code, cold.details]).toEqual([
      grpc.status.INVALID_ARGUMENT,
      'temperature must be a finite number ≥ 0, got -1',
    ]);
    const long = await client.readRefusal({ question: QUESTION, chunk: 'word '.repeat(5000) });
    expect(long.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(long.details).toMatch(/llm\(\) prompt of \d+ tokens is longer than the reader's 4096/);
    expect((await client.readSpan({ question: QUESTION, chunk: CHUNK })).prompt_tokens).toBeGreaterThan(0);
  });

  it("answers a checkpoint's paired reader (<dir>/reader) as loadPolicy finds it", async () => {
    const paired = join(dir, 'paired');
    await saveCheckpoint(paired, await createDefaultModel());
    await saveCheckpoint(
      join(paired, PAIRED_READER_DIR),
      await createDefaultModel(READER_CONFIG, 0, new HashedWordTokenizer(16384)),
    );
    const service = new InferenceService(checkpointModelLoader(paired));
    try {
      expect(await service.describe()).toEqual({ spanReader: true });
      const read = await service.readSpan({ question: QUESTION, chunk: CHUNK, temperature: 0 });
      // The paired reader has the reader checkpoint's weights, so it reads as that one does.
      const reply = await client.readSpan({ question: QUESTION, chunk: CHUNK, temperature: 0 });
      expect(read).toEqual({
        text: reply.text,
        answered: reply.answered,
        start: reply.start,
        end: reply.end,
        logprob: reply.logprob,
        promptTokens: reply.prompt_tokens,
      });
    } finally {
      await service.close();
    }
  });

  it("answers the env-service's llm() with a span read of the guest's chunk", async () => {
    const direct = await client.readSpan({ question: QUESTION, chunk: CHUNK, temperature: 0 });
    const { said, llmCalls } = await subcall(await envService(server.port, started));
    expect(said).toBe(direct.text);
    expect(said === 'unknown' || CHUNK.includes(said)).toBe(true);
    expect(llmCalls).toBe(1);
  }, 60_000);
});
