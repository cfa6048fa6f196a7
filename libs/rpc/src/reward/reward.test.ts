import * as grpc from '@grpc/grpc-js';
import type { RewardTrajectory } from '@fathom/contracts';
import { createLogger } from '@fathom/observability';
import { scoreGroup, type RewardTask } from '@fathom/rewards';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError } from '../errors';
import { RewardClient } from './reward.client';
import { toScoreGroupRequest } from './reward.mapping';
import { startRewardServer, type RewardServerHandle } from './reward.server';

const task: RewardTask = {
  question: 'What color is the mirror?',
  answer: 'red',
  aliases: ['crimson'],
  context_tokens: 16_000,
};

const SEARCH =
  "Let me find the mirror.\n```js\nconst i = ctx.indexOf('mirror');\nprint(ctx.slice(i - 200, i + 200));\n```";
const RECURSE = "```js\nconst a = await llm('What color is the mirror?', ctx.slice(0, 4000));\nprint(a);\n```";

const call = { depth: 1, promptTokens: 400, completionTokens: 40, chunkChars: 1600 };

/** A group covering every diagnostic branch: tagged, untagged, REPL answer(), wrong, rejected, executed and static calls. */
const group: RewardTrajectory[] = [
  {
    turns: [{ completion: SEARCH }, { completion: '<answer>red</answer>' }],
    llmCalls: [],
    tokens: { completion: 90, subcall: 0 },
  },
  {
    turns: [{ completion: RECURSE }, { completion: 'It is crimson.\n<answer>Crimson</answer>' }],
    llmCalls: [call, { ...call, depth: 2, chunkChars: undefined }],
    tokens: { completion: 300, subcall: 880 },
  },
  { turns: [{ completion: 'The mirror is red' }], llmCalls: null, tokens: { completion: 20, subcall: 0 } },
  {
    turns: [{ completion: RECURSE }, { completion: '<answer>blue</answer>' }],
    llmCalls: null,
    tokens: { completion: 5000, subcall: 0 },
  },
  { turns: [{ completion: '<answer></answer>' }], llmCalls: [], tokens: { completion: 4, subcall: 0 } },
  { turns: [], llmCalls: [], tokens: { completion: 0, subcall: 0 } },
  {
    turns: [{ completion: '```js\nanswer(ctx.match(/mirror is (\\w+)/)[1])\n```' }],
    llmCalls: [],
    tokens: { completion: 30, subcall: 0 },
    replAnswer: 'crimson',
  },
];

const logger = createLogger({ service: 'rpc-test', level: 'silent' });
let server: RewardServerHandle;
let client: RewardClient;

beforeAll(async () => {
  server = await startRewardServer({ host: '127.0.0.1', port: 0, logger });
  client = new RewardClient(`127.0.0.1:${server.port}`, { retries: 0 });
});
afterAll(async () => {
  client.close();
  await server.close();
});

async function invalidArgument(request: Parameters<RewardClient['scoreGroupMessage']>[0]): Promise<string> {
  const error = await client.scoreGroupMessage(request).then(
    () => {
      throw new Error('expected INVALID_ARGUMENT');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  expect((error as RpcError).code).toBe(grpc.status.INVALID_ARGUMENT);
  return (error as RpcError).message;
}

describe('Reward service over gRPC', () => {
  it('scores a group exactly as libs/rewards does, with the default and a custom config', async () => {
    expect(await client.scoreGroup(group, task)).toEqual(scoreGroup(group, task));
    const config = { weights: { correctness: 0.5, token_budget: 0.25, recursion_efficiency: 0.25 }, formatBonus: 0 };
    const remote = await client.scoreGroup(group, task, config);
    expect(remote).toEqual(scoreGroup(group, task, config));
    expect(remote.results[0].total).not.toBe(scoreGroup(group, task).results[0].total);
  });

  it("carries the environment's reward, the total with source env", async () => {
    const rewarded = group.map((t, i) => (i % 2 === 0 ? { ...t, envReward: i - 2.5 } : t));
    const remote = await client.scoreGroup(rewarded, task, { source: 'env' });
    expect(remote).toEqual(scoreGroup(rewarded, task, { source: 'env' }));
    expect(remote.rewards).toEqual(rewarded.map((t) => t.envReward ?? 0));
  });

  it('flags a group whose totals are all equal', async () => {
    const same = [group[0], group[0], group[0]];
    expect((await client.scoreGroup(same, task)).zeroStd).toBe(true);
  });

  it('answers INVALID_ARGUMENT naming the field for malformed input, and keeps serving', async () => {
    const good = toScoreGroupRequest(group, task);
    expect(await invalidArgument({ ...good, task: undefined })).toMatch(/task: required/);
    expect(await invalidArgument({ ...good, task: { ...good.task, context_tokens: 0 } })).toMatch(
      /task\.context_tokens:/,
    );
    expect(await invalidArgument({ ...good, task: { ...good.task, question: '' } })).toMatch(/task\.question:/);
    expect(await invalidArgument({ ...good, trajectories: [] })).toMatch(/trajectories: empty/);
    expect(await invalidArgument({ ...good, reward_config_json: '{"weights":' })).toMatch(
      /reward_config_json: not valid JSON/,
    );
    expect(await invalidArgument({ ...good, reward_config_json: '{"formatBonu": 0.2}' })).toMatch(
      /reward_config_json: .*formatBonu/,
    );
    expect(await invalidArgument({ ...good, reward_config_json: '{"weights":{"correctness":0.9}}' })).toMatch(
      /reward_config_json\.weights: reward weights must sum to 1/,
    );
    const badCall = { ...good.trajectories![1], llm_calls: [{ depth: 0, prompt_tokens: 1, completion_tokens: 1 }] };
    expect(await invalidArgument({ ...good, trajectories: [good.trajectories![0], badCall] })).toMatch(
      /trajectories\[1\]\.llm_calls\[0\]\.depth:/,
    );
    const notExecuted = { ...good.trajectories![1], executed: false };
    expect(await invalidArgument({ ...good, trajectories: [notExecuted] })).toMatch(
      /trajectories\[0\]\.llm_calls: given for a trajectory that was not executed/,
    );

    expect(await client.scoreGroup(group, task)).toEqual(scoreGroup(group, task));
  });

  it('answers INVALID_ARGUMENT, not INTERNAL, for bytes that are not a protobuf message, and keeps serving', async () => {
    const raw = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
    const send = (bytes: Buffer) =>
      new Promise<grpc.ServiceError | null>((resolve) =>
        raw.makeUnaryRequest(
          '/fathom.reward.v1.Reward/ScoreGroup',
          (b: Buffer) => b,
          (b: Buffer) => b,
          bytes,
          (error) => resolve(error),
        ),
      );
    try {
      for (const bytes of [Buffer.from([0xff, 0xff, 0xff]), Buffer.from('not protobuf'), Buffer.from([0x0a, 0x80])]) {
        const error = await send(bytes);
        expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
        expect(error?.details).toMatch(
          /^the request is not a protobuf message that \/fathom\.reward\.v1\.Reward\/ScoreGroup accepts \(.+\)$/,
        );
      }
    } finally {
      raw.close();
    }
    expect(await client.scoreGroup(group, task)).toEqual(scoreGroup(group, task));
  });
});
