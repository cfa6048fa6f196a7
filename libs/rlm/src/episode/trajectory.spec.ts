import { EpisodeTrajectorySchema, tokenSequenceProblem, type EpisodeTrajectory } from '@fathom/contracts';
import { describe, expect, it } from 'vitest';
import { clientRewardTrajectory, rolloutMetrics, toRewardTrajectory, trainingSequences } from './trajectory';

const leaf = { answer: 'x', promptTokens: 5, completionTokens: 2, latencyMs: 3, turns: 1, children: [] };

function trajectory(overrides: Partial<EpisodeTrajectory> = {}): EpisodeTrajectory {
  return {
    taskId: 't1',
    sampleIndex: 0,
    attempt: 0,
    status: 'ok',
    stopReason: 'answer',
    turns: [
      {
        completion: '```js\nprint(1)\n```',
        action: 'code',
        observation: '1',
        completionTokens: 2,
        sandboxError: null,
        finishReason: 'stop_token',
        generationMs: 4,
        envMs: 2,
      },
      {
        completion: '<answer>1</answer>',
        action: 'answer',
        observation: null,
        completionTokens: 1,
        sandboxError: null,
        finishReason: 'stop_token',
        generationMs: 3,
        envMs: 0,
      },
    ],
    answer: '1',
    ids: [1, 2, 3, 4, 5, 6, 7],
    logprobs: [0, 0, -0.5, -0.25, 0, 0, -1],
    mask: [0, 0, 1, 1, 0, 0, 1],
    promptTokens: 2,
    tokens: { completion: 3, observation: 2, subcall: 16 },
    recursionTree: {
      depth: 0,
      kind: 'root',
      prompt: 'q',
      chunkChars: 100,
      answer: '1',
      promptTokens: 4,
      completionTokens: 19,
      latencyMs: 10,
      turns: 2,
      children: [
        {
          depth: 1,
          kind: 'episode',
          prompt: 'sub',
          chunkChars: 40,
          ...leaf,
          promptTokens: 6,
          completionTokens: 10,
          children: [{ depth: 2, kind: 'leaf', prompt: 'leaf', chunkChars: 10, ...leaf }],
        },
        { depth: 1, kind: 'leaf', prompt: 'refused', chunkChars: 0, ...leaf, error: 'budget' },
      ],
    },
    policyVersion: 3,
    trainSubcalls: false,
    timings: { generationMs: 7, envMs: 2, totalMs: 12 },
    ...overrides,
  };
}

describe('EpisodeTrajectorySchema', () => {
  it('accepts a consistent trajectory', () => {
    expect(EpisodeTrajectorySchema.safeParse(trajectory()).success).toBe(true);
  });

  it.each([
    ['a dropped mask entry', { mask: [0, 0, 1, 1, 0, 0] }, /mask has 6 entries for 7 ids/],
    ['a log-prob on a prompt token', { logprobs: [0, -0.1, -0.5, -0.25, 0, 0, -1] }, /logprobs\[1\].*prompt token/],
    ['a mask value other than 0/1', { mask: [0, 0, 1, 2, 0, 0, 1] }, /mask\[3\] is 2/],
    [
      'a count that disagrees with the mask',
      { tokens: { completion: 4, observation: 2, subcall: 16 } },
      /mask marks 3/,
    ],
    ['infra_error without its reason', { status: 'infra_error' as const }, /infraError is set exactly/],
  ])('rejects %s', (_, overrides, message) => {
    const parsed = EpisodeTrajectorySchema.safeParse(trajectory(overrides));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.message).toMatch(message);
  });

  it('checks sub-call token sequences too', () => {
    expect(tokenSequenceProblem({ ids: [1, 2], logprobs: [0, -1], mask: [0, 1] })).toBeNull();
    expect(tokenSequenceProblem({ ids: [1, 2], logprobs: [0, 0.5], mask: [0, 1] })).toMatch(/positive/);
    expect(tokenSequenceProblem({ ids: [1, 2], logprobs: [0, Number.NaN], mask: [0, 1] })).toMatch(/NaN/);
  });
});

describe('toRewardTrajectory', () => {
  it('keeps the turns, the executed calls at every depth and the token counts', () => {
    expect(toRewardTrajectory(trajectory())).toEqual({
      turns: [{ completion: '```js\nprint(1)\n```' }, { completion: '<answer>1</answer>' }],
      llmCalls: [
        { depth: 1, promptTokens: 6, completionTokens: 10, chunkChars: 40 },
        { depth: 2, promptTokens: 5, completionTokens: 2, chunkChars: 10 },
      ],
      tokens: { completion: 3, subcall: 16 },
    });
  });
});

describe('clientRewardTrajectory', () => {
  const call = { depth: 1, promptChars: 40, chunkChars: 30, promptTokens: 12, completionTokens: 3, wallMs: 5 };
  const refused = { ...call, chunkChars: 0, error: 'llm() call limit reached' };

  it('makes each code action a fenced turn and the answer action a tagged one, with the executed calls', () => {
    const traj = clientRewardTrajectory({
      actions: [
        { kind: 'code', code: 'print(1)', completionTokens: 7 },
        { kind: 'answer', answer: 'teal', completionTokens: 2 },
      ],
      answer: 'teal',
      llmCalls: [call, refused],
    });
    expect(traj).toEqual({
      turns: [{ completion: '```js\nprint(1)\n```' }, { completion: '<answer>teal</answer>' }],
      llmCalls: [{ depth: 1, promptTokens: 12, completionTokens: 3, chunkChars: 30 }],
      tokens: { completion: 9, subcall: 15 },
    });
  });

  it('estimates the root tokens from the turns unless every action reported them', () => {
    const actions = [
      { kind: 'code' as const, code: 'print(ctx.length)', completionTokens: 500 },
      { kind: 'answer' as const, answer: '42', completionTokens: null },
    ];
    const partial = clientRewardTrajectory({ actions, answer: '42', llmCalls: [] });
    const estimated = clientRewardTrajectory({
      actions: actions.map((action) => ({ ...action, completionTokens: null })),
      answer: '42',
      llmCalls: [],
    });
    expect(partial.tokens.completion).toBe(estimated.tokens.completion);
    expect(estimated.tokens.completion).toBeGreaterThan(0);
    expect(estimated.tokens.completion).toBeLessThan(500);
  });

  it("reads an answer passed to the REPL's answer() as the replAnswer, and ends an unanswered episode empty", () => {
    const code = { kind: 'code' as const, code: 'answer("teal")', completionTokens: 4 };
    expect(clientRewardTrajectory({ actions: [code], answer: 'teal', llmCalls: [] })).toMatchObject({
      turns: [{ completion: '```js\nanswer("teal")\n```' }],
      replAnswer: 'teal',
    });
    const unanswered = clientRewardTrajectory({ actions: [code], answer: null, llmCalls: [] });
    expect(unanswered.turns.at(-1)).toEqual({ completion: '' });
    expect(unanswered.replAnswer).toBeUndefined();
  });
});

describe('rolloutMetrics', () => {
  it('aggregates multi-turn figures over scored episodes only', () => {
    const truncated = trajectory({ sampleIndex: 1, status: 'truncated', stopReason: 'turn_limit', answer: null });
    truncated.turns[0].sandboxError = 'runtime';
    const infra = trajectory({
      sampleIndex: 2,
      status: 'infra_error',
      stopReason: 'infra',
      infraError: { code: 'worker_crashed', message: 'killed' },
    });
    const m = rolloutMetrics([trajectory(), truncated, infra]);
    expect(m.episodes).toBe(3);
    expect(m.status).toEqual({ ok: 1, truncated: 1, timeout: 0, sandbox_error: 0, infra_error: 1 });
    expect(m.stop_reasons).toMatchObject({ answer: 1, turn_limit: 1, infra: 1, token_limit: 0 });
    expect(m.truncation_rate).toBe(0.5);
    expect(m.truncated_at_turn).toEqual({ 2: 1 });
    expect(m.sandbox_error_rate).toBe(0.25);
    expect(m.llm_calls_mean).toBe(2);
    expect(m.llm_calls_per_depth).toEqual({ 1: 2, 2: 2 });
    expect(m.subcall_tokens_per_depth).toEqual({ 1: 32, 2: 14 });
    expect(m.subcall_latency_ms_per_depth).toEqual({ 1: 6, 2: 6 });
    expect(m.env_step_ms_mean).toBe(2);
    expect(m.completion_tokens_mean).toBe(3);
    expect(m.turns_per_episode_mean).toBe(2);
  });
});

describe('trainingSequences', () => {
  it('gives the root sequence only, unless the run trains on sub-calls', () => {
    const sequence = { ids: [9, 8], logprobs: [0, -0.5], mask: [0, 1] };
    const traj = trajectory();
    traj.recursionTree.children[0].sequence = sequence;
    expect(trainingSequences(traj)).toEqual([{ ids: traj.ids, logprobs: traj.logprobs, mask: traj.mask }]);
    expect(trainingSequences({ ...traj, trainSubcalls: true })).toEqual([
      { ids: traj.ids, logprobs: traj.logprobs, mask: traj.mask },
      sequence,
    ]);
    expect(trainingSequences({ ...traj, trainSubcalls: true, trainRoot: false })).toEqual([sequence]);
  });

  it('refuses a dropped mask entry, naming the sequence', () => {
    const traj = trajectory({ trainSubcalls: true });
    traj.recursionTree.children[0].sequence = { ids: [9, 8], logprobs: [0, -0.5], mask: [0] };
    expect(() => trainingSequences(traj)).toThrow(/sample 0, sub-call 0 \(depth 1\): mask has 1 entries for 2 ids/);
    expect(() => trainingSequences(trajectory({ mask: [0, 0, 1] }))).toThrow(/root: mask has 3 entries for 7 ids/);
  });
});
