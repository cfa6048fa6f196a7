import type { Task } from '@fathom/contracts';
import { generateTasks, writeTasksJsonl } from '@fathom/tasks';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvGrpcClient, get, post, startHarness, WsClient, type Harness } from '../test-support/harness';

/** Episodes over tasks from a JSONL dataset (libs/tasks format): selection by split and id, or sampled by seed. */

let h: Harness;
let dir: string;
let evalTasks: Task[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fathom-env-'));
  evalTasks = [
    ...generateTasks({ split: 'eval', n: 2, seed: 3, minTokens: 200_000, maxTokens: 200_000, mix: { niah: 1 } }),
  ];
  await writeTasksJsonl(join(dir, 'eval.jsonl'), evalTasks);
  await writeTasksJsonl(
    join(dir, 'train.jsonl'),
    generateTasks({ split: 'train', n: 5, seed: 1, minTokens: 4096, maxTokens: 4096 }),
  );
  h = await startHarness({ DATASET_PATH: dir });
});

afterAll(async () => {
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

describe('dataset tasks', () => {
  it('WebSocket: a 200K-token eval task by id; searching for the subject finds the answer', async () => {
    const task = evalTasks[0];
    const ws = await WsClient.connect(h.wsUrl);
    const reset = await ws.request({ type: 'reset', data: { split: 'eval', task_id: task.id } });
    expect(reset.data.observation).toMatchObject({ question: task.question, context_tokens: task.context_tokens });
    expect(task.context_tokens).toBeGreaterThanOrEqual(200_000);

    // The key is copied into the code as a literal, as the policy is taught to do.
    const code = `print(grep(${JSON.stringify(task.meta!.key)}).map((h) => h.text).join("\\n"));`;
    const search = await ws.request({ type: 'step', data: { action: { code } } });
    expect(search.data.observation.error).toBeNull();
    expect(search.data.observation.stdout.toLowerCase()).toContain(task.answer.toLowerCase());

    expect((await ws.request({ type: 'state' })).data).toMatchObject({
      task_id: task.id,
      split: 'eval',
      step_count: 1,
    });
    const answer = await ws.request({ type: 'step', data: { action: { answer: task.answer } } });
    expect(answer.data).toMatchObject({ done: true, observation: { correct: true } });
    await ws.close();
  });

  it('gRPC: the same seed samples the same task from a split, and a task id in another split is NOT_FOUND', async () => {
    const client = new EnvGrpcClient(h.grpcAddress);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const reply = await client.call('Reset', { split: 'train', seed: 42 });
        const state = await client.call('State', { episode_id: reply.observation.episode_id });
        ids.push(state.task_id);
        expect(state.split).toBe('train');
        await client.call('Close', { episode_id: reply.observation.episode_id });
      }
      expect(ids[0]).toBe(ids[1]);
      await expect(client.call('Reset', { split: 'train', task_id: evalTasks[0].id })).rejects.toMatchObject({
        code: 5,
      });
    } finally {
      client.close();
    }
  });

  it('HTTP: reset without a task selection samples from the train split', async () => {
    const reset = await post(h.baseUrl, '/reset', {});
    expect(reset.status).toBe(200);
    const state = await get(h.baseUrl, `/state?episode_id=${reset.body.observation.episode_id}`);
    expect(state.body.split).toBe('train');
    expect(state.body.task_id).toMatch(/^train-/);
  });
});
