import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, startEnvService, type RunningEnvService } from '@fathom/env-service';
import { createLogger } from '@fathom/observability';
import type { RecursionTreeNode } from '@fathom/contracts';
import type { EvalSuiteReport, OpenAiUsage } from '@fathom/rlm';
import { generateTasks } from '@fathom/tasks';
import { checkpointModelLoader, startInferenceServer, type InferenceServerHandle } from '@fathom/rollout-worker';

/**
 * FATHOM evaluates itself: `fathom eval --policy openai:…` (the real CLI, in its own process) against the
 * env-service's own /v1/chat/completions, whose Inference endpoint is the rollout worker's gRPC server with the
 * shipped checkpoint. The served model writes every turn; the CLI's REPL runs the code and scores the answers.
 */

const bin = fileURLToPath(new URL('../../apps/cli/bin/fathom', import.meta.url));
const checkpoint = fileURLToPath(new URL('../../data/checkpoints/default', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fathom-eval-own-v1-'));

let inference: InferenceServerHandle;
let service: RunningEnvService;

beforeAll(async () => {
  const logger = createLogger({ service: 'eval-own-v1-test', level: 'silent' });
  inference = await startInferenceServer({
    host: '127.0.0.1',
    port: 0,
    load: checkpointModelLoader(checkpoint),
    logger,
  });
  service = await startEnvService(
    loadConfig({
      HOST: '127.0.0.1',
      HTTP_PORT: '0',
      GRPC_PORT: '0',
      INFERENCE_ADDRESS: `127.0.0.1:${inference.port}`,
      LOG_LEVEL: 'silent',
      SANDBOX_WORKERS: '1',
      SANDBOX_LOW_PRIORITY_WORKERS: '0',
      FATHOM_MODEL_ID: 'fathom-rlm',
    }),
  );
});

afterAll(async () => {
  await service?.close();
  await inference?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("fathom eval against FATHOM's own /v1", () => {
  it('runs every episode on the served model and scores it, exiting 0', async () => {
    const out = join(dir, 'report.json');
    const spec = `openai:http://127.0.0.1:${service.httpPort}/v1#fathom-rlm`;
    const args = ['eval', '--policy', spec, '--n', '3', '--baselines', 'none', '--prompt-style', 'compact'];
    const { stdout } = await promisify(execFile)(
      bin,
      [...args, '--max-turns', '2', '--max-turn-tokens', '96', '--out', out, '--no-progress'],
      { env: { ...process.env, NODE_OPTIONS: '' } },
    );
    expect(stdout).toMatch(/^overall\s+3\s+[\d.]+%$/m);
    const report = JSON.parse(readFileSync(out, 'utf8')) as EvalSuiteReport & { endpoints: OpenAiUsage[] };
    const tasks = report.systems[0].runs[0].tasks;
    expect(tasks.map((t) => t.infraError)).toEqual([undefined, undefined, undefined]);
    expect(tasks.every((t) => t.correct !== null && t.turns >= 1)).toBe(true);
    const [usage] = report.endpoints;
    expect(usage.requests).toBeGreaterThanOrEqual(3);
    expect(usage.completionTokens).toBeGreaterThan(0);
  }, 180_000);

  it("answers the README's request (a document, then a question) with a non-empty answer read by the span reader", async () => {
    const [task] = generateTasks({
      split: 'heldout',
      n: 1,
      seed: 1,
      minTokens: 8192,
      maxTokens: 16_384,
      mix: { niah: 1 },
    });
    const reply = await fetch(`http://127.0.0.1:${service.httpPort}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'fathom-rlm',
        messages: [
          { role: 'user', content: task.context },
          { role: 'user', content: task.question },
        ],
      }),
    });
    expect(reply.status).toBe(200);
    const body = (await reply.json()) as {
      choices: { message: { content: string } }[];
      fathom: { recursion_tree: RecursionTreeNode };
    };
    expect(body.choices[0].message.content).not.toBe('');
    const leaves = body.fathom.recursion_tree.children.filter((c) => c.kind === 'leaf');
    expect(leaves.length).toBeGreaterThan(0);
    expect(leaves.every((leaf) => leaf.read?.head === 'span')).toBe(true);
  }, 120_000);
});
