import { EpisodeTrajectorySchema, type EpisodeTrajectory } from '@fathom/contracts';
import { ByteTokenizer } from '@fathom/model';
import { SandboxPool } from '@fathom/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderConversation, segmentsText } from '../prompt';
import { EpisodeRunner } from './episode.runner';
import { NO_ACTION_OBSERVATION } from './observation';
import type { PolicyTokenizer } from './policy';
import {
  MIRROR_TASK,
  recursionScript,
  ScriptedTestPolicy,
  scriptText,
  type ScriptCall,
} from './scripted-policy.test-double';
import { rolloutMetrics, toRewardTrajectory } from './trajectory';

const { turnsSoFar, lastOutput, js } = scriptText;

const tokenizer = new ByteTokenizer();
const TASK = MIRROR_TASK;

/** Model turns already in the prompt (the number of assistant headers minus the one being answered). */

/** A competent scripted solver: grep the colour, then answer with what was printed. */
const solver = ({ prompt }: ScriptCall) =>
  turnsSoFar(prompt) === 0 ? js('print(ctx.match(/mirror is (\\w+)/)[1])') : `<answer>${lastOutput(prompt)}</answer>`;

/** Checks every token-level invariant of a trajectory against the policy's calls. */
function expectTokenInvariants(traj: EpisodeTrajectory): void {
  expect(EpisodeTrajectorySchema.safeParse(traj).success).toBe(true);
  expect(traj.mask).toHaveLength(traj.ids.length);
  expect(traj.logprobs).toHaveLength(traj.ids.length);
  const modelIds = traj.ids.filter((_, i) => traj.mask[i] === 1);
  expect(modelIds.length).toBe(traj.tokens.completion);
  expect(traj.turns.reduce((n, t) => n + t.completionTokens, 0)).toBe(traj.tokens.completion);
  traj.ids.forEach((id, i) => expect(traj.logprobs[i]).toBe(traj.mask[i] === 1 ? ScriptedTestPolicy.logprobOf(id) : 0));
  // The ids are exactly the rendered conversation, with each turn's sampled ids (its text + <|im_end|>).
  const rendered = renderConversation(
    TASK,
    traj.turns.map((t) => ({ completion: t.completion, observation: t.observation ?? undefined })),
  );
  const text = segmentsText(rendered);
  // The last turn's untrained newline is never appended; a turn cut by its token limit has no <|im_end|> either.
  const tail = traj.turns.at(-1)!.finishReason === 'stop_token' ? '\n' : '<|im_end|>\n';
  expect(text.endsWith(tail)).toBe(true);
  expect(tokenizer.decode(traj.ids)).toBe(text.slice(0, -tail.length));
  expect(traj.ids.slice(0, traj.promptTokens)).toEqual(tokenizer.encode(segmentsText(rendered.slice(0, 3))));
}

let pool: SandboxPool;
beforeAll(async () => {
  pool = await SandboxPool.start({ workers: 2, warmIsolatesPerWorker: 2 });
});
afterAll(() => pool.close());

describe('EpisodeRunner against the real sandbox', () => {
  it('runs a multi-turn group turn-synchronously with shared prefills and exact ids', async () => {
    // Row 0 answers at once (wrongly), rows 1 and 2 search first.
    const policy = new ScriptedTestPolicy(tokenizer, (call) =>
      call.call === 0 && call.row === 0 ? '<answer>blue</answer>' : solver(call),
    );
    const runner = new EpisodeRunner({ sandbox: pool, policy });
    const group = await runner.runGroup(TASK, { G: 3, seed: 7 });

    expect(group.excluded).toEqual([]);
    expect(group.trajectories.map((t) => [t.sampleIndex, t.status, t.stopReason, t.answer, t.turns.length])).toEqual([
      [0, 'ok', 'answer', 'blue', 1],
      [1, 'ok', 'answer', 'teal', 2],
      [2, 'ok', 'answer', 'teal', 2],
    ]);
    // Turn 1: one request of n=3 (one prefill); turn 2: samples 1 and 2 have the same prompt again → n=2.
    expect(policy.calls.map((c) => c.requests.map((r) => r.n))).toEqual([[3], [2]]);
    expect(policy.calls[0].params).toMatchObject({ stopTokens: [tokenizer.tokenId('<|im_end|>')] });
    const searched = group.trajectories[1];
    expect(searched.turns[0]).toMatchObject({ action: 'code', observation: 'teal', sandboxError: null });
    expect(searched.turns[1]).toMatchObject({ action: 'answer', observation: null });
    expect(searched.tokens.observation).toBeGreaterThan(0);
    expect(searched.recursionTree).toMatchObject({ depth: 0, kind: 'root', answer: 'teal', turns: 2, children: [] });
    // Turn 2's prompt is exactly what the trajectory holds before turn 2's sampled ids.
    const turn2Prompt = policy.calls[1].requests[0].prompt;
    expect(searched.ids.slice(0, turn2Prompt.length)).toEqual(turn2Prompt);
    for (const traj of group.trajectories) expectTokenInvariants(traj);
  });

  it('feeds back runtime errors and turns without action, and truncates at the turn limit', async () => {
    const policy = new ScriptedTestPolicy(
      tokenizer,
      ({ prompt }) => [js('notDefined()'), 'I am thinking about it.', js('print(1)')][turnsSoFar(prompt)],
    );
    const runner = new EpisodeRunner({ sandbox: pool, policy }, { maxTurns: 3 });
    const [traj] = (await runner.runGroup(TASK, { G: 1, seed: 0 })).trajectories;
    expect(traj).toMatchObject({ status: 'truncated', stopReason: 'turn_limit', answer: null });
    expect(traj.turns.map((t) => [t.action, t.sandboxError])).toEqual([
      ['code', 'runtime'],
      ['none', null],
      ['code', null],
    ]);
    expect(traj.turns[0].observation).toMatch(/^runtime: .*notDefined/);
    expect(traj.turns[1].observation).toBe(NO_ACTION_OBSERVATION);
    expect(traj.turns[2].observation).toBeNull();
    expectTokenInvariants(traj);
    const metrics = rolloutMetrics([traj]);
    expect(metrics).toMatchObject({ truncation_rate: 1, truncated_at_turn: { 3: 1 }, sandbox_error_rate: 1 / 3 });
    expect(metrics.sandbox_errors).toEqual({ runtime: 1 });
  });

  it('truncates at the per-turn and per-episode token limits', async () => {
    const chatty = new ScriptedTestPolicy(tokenizer, () => 'x'.repeat(100));
    const perTurn = new EpisodeRunner({ sandbox: pool, policy: chatty }, { maxTokensPerTurn: 20 });
    const [cut] = (await perTurn.runGroup(TASK, { G: 1, seed: 0 })).trajectories;
    expect(cut).toMatchObject({ status: 'truncated', stopReason: 'token_limit', tokens: { completion: 20 } });
    expect(cut.turns[0]).toMatchObject({ finishReason: 'length', completion: 'x'.repeat(20) });
    expectTokenInvariants(cut);

    const looper = new ScriptedTestPolicy(tokenizer, () => js('print("a long line of output ".repeat(5))'));
    const promptTokens = tokenizer.encode(segmentsText(renderConversation(TASK, []))).length;
    const episodeCap = new EpisodeRunner({ sandbox: pool, policy: looper }, { maxEpisodeTokens: promptTokens + 200 });
    const [capped] = (await episodeCap.runGroup(TASK, { G: 1, seed: 0 })).trajectories;
    expect(capped).toMatchObject({ status: 'truncated', stopReason: 'token_limit' });
    expect(capped.ids.length).toBeLessThanOrEqual(promptTokens + 200);
    expect(looper.calls.at(-1)!.requests[0].maxNewTokens).toBeLessThan(512);
    expectTokenInvariants(capped);
  });

  it('ends the episode on a cell that calls answer(), with that value and no observation', async () => {
    const policy = new ScriptedTestPolicy(tokenizer, () =>
      js('answer(ctx.match(/mirror is (\\w+)/)[1]); print("after")'),
    );
    const runner = new EpisodeRunner({ sandbox: pool, policy });
    const [traj] = (await runner.runGroup(TASK, { G: 1, seed: 0 })).trajectories;
    expect(traj).toMatchObject({ status: 'ok', stopReason: 'answer', answer: 'teal' });
    expect(traj.turns.map((t) => [t.action, t.observation, t.sandboxError])).toEqual([['code', null, null]]);
    expect(traj.recursionTree).toMatchObject({ answer: 'teal', turns: 1 });
    expect(toRewardTrajectory(traj).replAnswer).toBe('teal');
    expectTokenInvariants(traj);
  });

  it('excludes an episode whose text answer must go to an environment its sandbox does not have', async () => {
    const policy = new ScriptedTestPolicy(tokenizer, solver);
    const runner = new EpisodeRunner({ sandbox: pool, policy }, { submitAnswers: true, maxInfraRetries: 0 });
    const group = await runner.runGroup(TASK, { G: 1, seed: 0 });
    expect(group.trajectories).toEqual([]);
    expect(group.excluded.map((t) => [t.status, t.infraError?.code])).toEqual([['infra_error', 'worker_crashed']]);
    expect(group.excluded[0].infraError?.message).toMatch(/this sandbox has no environment to give the answer to/);
  });

  it('takes the answer over code in the same turn and ignores an answer inside code', async () => {
    const policy = new ScriptedTestPolicy(tokenizer, ({ prompt }) =>
      turnsSoFar(prompt) === 0
        ? js('const s = "<answer>fake</answer>"; print("ok")')
        : `${js('while (true) {}')}\nDone: <answer> teal </answer>`,
    );
    const runner = new EpisodeRunner({ sandbox: pool, policy });
    const [traj] = (await runner.runGroup(TASK, { G: 1, seed: 0 })).trajectories;
    expect(traj).toMatchObject({ status: 'ok', answer: 'teal' });
    expect(traj.turns.map((t) => t.action)).toEqual(['code', 'answer']);
    expect(traj.turns[0].observation).toBe('ok');
  });

  it('classifies a policy whose code exceeds the CPU limit as timeout and still scores it', async () => {
    const policy = new ScriptedTestPolicy(tokenizer, () => js('while (true) {}'));
    const runner = new EpisodeRunner({ sandbox: pool, policy }, { sandboxLimits: { stepCpuMs: 100 } });
    const [traj] = (await runner.runGroup(TASK, { G: 1, seed: 0 })).trajectories;
    expect(traj).toMatchObject({ status: 'timeout', stopReason: 'sandbox_timeout' });
    expect(traj.turns[0].sandboxError).toBe('cpu_limit');
    expect(toRewardTrajectory(traj).turns).toHaveLength(1);
  });

  it('fails a trajectory whose re-rendered prompt does not extend its ids, with a diff, and retries it', async () => {
    // A tokenizer that starts encoding "REPL" differently after its first three calls (the first prompt).
    let encodes = 0;
    const drifting: PolicyTokenizer = {
      encode: (text) => {
        encodes++;
        return tokenizer.encode(encodes > 3 ? text.replace('REPL', 'repl') : text);
      },
      decode: (ids) => tokenizer.decode(ids),
      tokenId: (t) => tokenizer.tokenId(t),
    };
    const policy = new ScriptedTestPolicy(drifting, solver);
    const runner = new EpisodeRunner({ sandbox: pool, policy }, { maxInfraRetries: 1 });
    const group = await runner.runGroup(TASK, { G: 1, seed: 0 });
    expect(group.infraFailures).toHaveLength(1);
    const failure = group.infraFailures[0];
    expect(failure).toMatchObject({ sampleIndex: 0, attempt: 0, code: 'token_mismatch' });
    expect(failure.message).toContain('the prompt of turn 1 does not extend');
    expect(failure.message).toMatch(/first difference at position \d+/);
    expect(failure.message).toContain('- fed/sampled:');
    expect(failure.message).toContain('REPL');
    expect(failure.message).toContain('repl');
    // The retry renders consistently from its first prompt on, so it is kept.
    expect(group.trajectories).toHaveLength(1);
    expect(group.trajectories[0]).toMatchObject({ attempt: 1, status: 'ok', answer: 'teal' });
  });

  it('retries a sample whose policy call failed and excludes it when retries run out, never scoring it', async () => {
    const flaky = new ScriptedTestPolicy(tokenizer, solver, { fail: (call) => call === 1 });
    const recovered = await new EpisodeRunner({ sandbox: pool, policy: flaky }, { maxInfraRetries: 1 }).runGroup(TASK, {
      G: 2,
      seed: 0,
    });
    expect(recovered.infraFailures.map((f) => [f.sampleIndex, f.code])).toEqual([
      [0, 'policy_error'],
      [1, 'policy_error'],
    ]);
    expect(recovered.trajectories.map((t) => [t.attempt, t.status])).toEqual([
      [1, 'ok'],
      [1, 'ok'],
    ]);

    const broken = new ScriptedTestPolicy(tokenizer, solver, { fail: () => true });
    const lost = await new EpisodeRunner({ sandbox: pool, policy: broken }, { maxInfraRetries: 2 }).runGroup(TASK, {
      G: 2,
      seed: 0,
    });
    expect(lost.trajectories).toEqual([]);
    expect(lost.excluded.map((t) => [t.sampleIndex, t.attempt, t.status, t.infraError?.code])).toEqual([
      [0, 2, 'infra_error', 'policy_error'],
      [1, 2, 'infra_error', 'policy_error'],
    ]);
    expect(lost.infraFailures).toHaveLength(6);
    expect(() => toRewardTrajectory(lost.excluded[0])).toThrow(expect.objectContaining({ code: 'NOT_SCORABLE' }));
  });

  it('turns a sandbox worker killed mid-group into infra_error and reruns only that sample', async () => {
    const crashPool = await SandboxPool.start({ workers: 2, warmIsolatesPerWorker: 1 });
    try {
      const policy = new ScriptedTestPolicy(tokenizer, (call) => {
        if (call.call === 0 && call.row === 0) {
          // Sample 0 opened first, so it sits on worker 0: kill that worker while the sample's code is running.
          const pid = crashPool.stats().workers[0].pid!;
          setTimeout(() => process.kill(pid, 'SIGKILL'), 150);
          return js('while (true) {}');
        }
        return solver(call);
      });
      const runner = new EpisodeRunner(
        { sandbox: crashPool, policy },
        { sandboxLimits: { stepCpuMs: 20_000, stepWallMs: 20_000 } },
      );
      const group = await runner.runGroup(TASK, { G: 2, seed: 0 });
      expect(group.infraFailures).toEqual([
        expect.objectContaining({ sampleIndex: 0, attempt: 0, code: 'worker_crashed' }),
      ]);
      expect(group.trajectories.map((t) => [t.sampleIndex, t.attempt, t.status, t.answer])).toEqual([
        [0, 1, 'ok', 'teal'],
        [1, 0, 'ok', 'teal'],
      ]);
    } finally {
      await crashPool.close();
    }
  });

  it('serves llm() by chunk size: a child episode over a chunk above the reader window, a leaf read within it', async () => {
    const run = async (trainSubcalls: boolean) => {
      const runner = new EpisodeRunner(
        { sandbox: pool, policy: new ScriptedTestPolicy(tokenizer, recursionScript) },
        { trainSubcalls, sandboxLimits: { maxDepth: 2 }, subcalls: { readerWindowChars: 20 } },
      );
      return (await runner.runGroup(TASK, { G: 1, seed: 0 })).trajectories[0];
    };
    const traj = await run(false);
    expect(traj).toMatchObject({ status: 'ok', answer: 'teal', trainSubcalls: false });
    const root = traj.recursionTree;
    expect(root.children).toHaveLength(1);
    const child = root.children[0];
    expect(child).toMatchObject({ depth: 1, kind: 'episode', prompt: 'which colour?', chunkChars: 40, answer: 'teal' });
    expect(child.turns).toBe(2);
    expect(child.children).toEqual([
      expect.objectContaining({
        depth: 2,
        kind: 'leaf',
        prompt: 'name it',
        chunkChars: 10,
        answer: 'teal',
        turns: 1,
      }),
    ]);
    const leaf = child.children[0];
    expect(leaf.completionTokens).toBe(tokenizer.encode('teal<|im_end|>').length);
    expect(child.completionTokens).toBeGreaterThan(leaf.promptTokens + leaf.completionTokens);
    expect(traj.tokens.subcall).toBe(child.promptTokens + child.completionTokens);
    expect(child.sequence).toBeUndefined();
    expect(leaf.sequence).toBeUndefined();
    // Sub-call tokens are not in the root's trained tokens.
    expect(traj.mask.reduce((a, b) => a + b, 0)).toBe(traj.tokens.completion);
    expect(toRewardTrajectory(traj).llmCalls?.map((c) => c.depth)).toEqual([1, 2]);
    expect(rolloutMetrics([traj]).llm_calls_per_depth).toEqual({ 1: 1, 2: 1 });

    const trained = await run(true);
    const trainedChild = trained.recursionTree.children[0];
    expect(trainedChild.sequence?.mask.reduce((a, b) => a + b, 0)).toBe(
      trainedChild.completionTokens -
        (trainedChild.children[0].promptTokens + trainedChild.children[0].completionTokens),
    );
    expect(trainedChild.children[0].sequence?.ids.length).toBe(
      trainedChild.children[0].promptTokens + trainedChild.children[0].completionTokens,
    );
    expect(EpisodeTrajectorySchema.safeParse(trained).success).toBe(true);
  });

  it('binds `question` in the REPL: the task question at the root, the sub-question in a child episode', async () => {
    const script = ({ prompt }: ScriptCall) => {
      const child = prompt.includes('Question: which colour?');
      if (turnsSoFar(prompt) === 0)
        return child ? js('print(question)') : js('print(question + " | " + llm("which colour?", ctx.slice(0, 40)))');
      return `<answer>${lastOutput(prompt)}</answer>`;
    };
    const runner = new EpisodeRunner(
      { sandbox: pool, policy: new ScriptedTestPolicy(tokenizer, script) },
      { sandboxLimits: { maxDepth: 2 }, subcalls: { readerWindowChars: 20 } },
    );
    const traj = (await runner.runGroup(TASK, { G: 1, seed: 0 })).trajectories[0];
    expect(traj.turns[0].observation).toBe(`${TASK.question} | which colour?`);
    expect(traj.recursionTree.children[0]).toMatchObject({ kind: 'episode', answer: 'which colour?' });
  });

  it('fails an episode whose policy changed weights between its turns (stale or mixed versions)', async () => {
    const policy: ScriptedTestPolicy = new ScriptedTestPolicy(tokenizer, (call) => {
      if (call.call === 0) policy.version = 8;
      return solver(call);
    });
    policy.version = 7;
    const runner = new EpisodeRunner({ sandbox: pool, policy }, { maxInfraRetries: 0 });
    const group = await runner.runGroup(TASK, { G: 1, seed: 0 });
    expect(group.excluded[0]).toMatchObject({ status: 'infra_error', policyVersion: 7 });
    expect(group.excluded[0].infraError?.message).toMatch(/policy version changed mid-episode from 7 to 8/);
  });

  it('fails the root episode when a sub-call policy call fails', async () => {
    const policy = new ScriptedTestPolicy(
      tokenizer,
      () => js('try { print(llm("q", "chunk")) } catch (e) { print("caught") }'),
      { fail: (call) => call === 1 },
    );
    const runner = new EpisodeRunner({ sandbox: pool, policy }, { maxInfraRetries: 0, sandboxLimits: { maxDepth: 1 } });
    const group = await runner.runGroup(TASK, { G: 1, seed: 0 });
    expect(group.trajectories).toEqual([]);
    expect(group.excluded[0]).toMatchObject({ status: 'infra_error', infraError: { code: 'policy_error' } });
    expect(group.excluded[0].recursionTree.children[0].error).toMatch(/injected failure/);
  });

  it('reads a chunk within the reader window as a leaf at every depth, and a call without a chunk too', async () => {
    const prompts: string[] = [];
    const script = ({ prompt }: ScriptCall) => {
      if (prompt.includes('Answer the question about the text briefly.')) {
        prompts.push(prompt);
        return 'teal';
      }
      if (turnsSoFar(prompt) === 0) return js('print(llm("which colour?", ctx.slice(0, 40)) + llm("and now?"))');
      return `<answer>${lastOutput(prompt)}</answer>`;
    };
    const runner = new EpisodeRunner(
      { sandbox: pool, policy: new ScriptedTestPolicy(tokenizer, script) },
      { sandboxLimits: { maxDepth: 2 }, subcalls: { readerWindowChars: 40 } },
    );
    const traj = (await runner.runGroup(TASK, { G: 1, seed: 0 })).trajectories[0];
    expect(traj.answer).toBe('tealteal');
    expect(traj.recursionTree.children.map((c) => [c.kind, c.depth, c.chunkChars, c.turns])).toEqual([
      ['leaf', 1, 40, 1],
      ['leaf', 1, 0, 1],
    ]);
    expect(prompts[0]).toContain(`which colour?\n\nText:\n${TASK.context.slice(0, 40)}`);
  });

  it('samples leaf reads at subcalls.leafTemperature and the turns at the episode temperature', async () => {
    const script = ({ prompt }: ScriptCall) => {
      if (prompt.includes('Answer the question about the text briefly.')) return 'teal';
      if (turnsSoFar(prompt) === 0) return js('print(llm("which colour?", ctx.slice(0, 40)))');
      return `<answer>${lastOutput(prompt)}</answer>`;
    };
    const policy = new ScriptedTestPolicy(tokenizer, script);
    const runner = new EpisodeRunner(
      { sandbox: pool, policy },
      { sampling: { temperature: 1 }, subcalls: { leafTemperature: 0 } },
    );
    const traj = (await runner.runGroup(TASK, { G: 1, seed: 0 })).trajectories[0];
    expect(traj.answer).toBe('teal');
    // The first turn, its leaf read, the answering turn.
    expect(policy.calls.map((c) => c.params.temperature)).toEqual([1, 0, 1]);
    expect(
      () => new EpisodeRunner({ sandbox: pool, policy }, { trainSubcalls: true, subcalls: { leafTemperature: 0 } }),
    ).toThrow(/leafTemperature with trainSubcalls/);
  });

  it('refuses every llm() call inside the guest when sub-calls are disabled, without asking the policy', async () => {
    const policy = new ScriptedTestPolicy(tokenizer, ({ prompt }) =>
      turnsSoFar(prompt) === 0
        ? js('try { llm("which colour?", "The mirror is teal.") } catch (e) { print(e.message) }')
        : `<answer>${lastOutput(prompt)}</answer>`,
    );
    const runner = new EpisodeRunner({ sandbox: pool, policy }, { subcalls: { enabled: false } });
    const traj = (await runner.runGroup(TASK, { G: 1, seed: 0 })).trajectories[0];
    expect(traj.turns[0].observation).toMatch(/llm\(\) is disabled/);
    expect(policy.calls).toHaveLength(2);
    expect(toRewardTrajectory(traj).llmCalls ?? []).toEqual([]);
  });

  it('answers leaf calls with the leaf reader when one is given, naming the root task, and child turns by the policy', async () => {
    const seen: unknown[] = [];
    const observed: [string, string][] = [];
    const script = ({ prompt }: ScriptCall) => {
      if (prompt.includes('Answer the question about the text briefly.')) throw new Error('the policy read a leaf');
      const child = prompt.includes('Question: which colour?');
      if (turnsSoFar(prompt) === 0)
        return child
          ? js('answer(llm("name it", ctx.slice(0, 10)))')
          : js('print(llm("which colour?", ctx.slice(0, 40)))');
      return `<answer>${lastOutput(prompt)}</answer>`;
    };
    const runner = new EpisodeRunner(
      {
        sandbox: pool,
        policy: new ScriptedTestPolicy(tokenizer, script),
        leafReader: (call) => {
          seen.push(call);
          return 'oracle';
        },
        onLeaf: (call, answer) => observed.push([call.question, answer]),
      },
      { sandboxLimits: { maxDepth: 2 }, subcalls: { readerWindowChars: 20 } },
    );
    const traj = (await runner.runGroup(TASK, { G: 1, seed: 0 })).trajectories[0];
    expect(traj).toMatchObject({ status: 'ok', answer: 'oracle' });
    expect(seen).toEqual([{ taskId: TASK.id, question: 'name it', chunk: TASK.context.slice(0, 10) }]);
    expect(observed).toEqual([['name it', 'oracle']]);
    const leaf = traj.recursionTree.children[0].children[0];
    expect(leaf).toMatchObject({ kind: 'leaf', depth: 2, answer: 'oracle', turns: 1 });
    expect(leaf.completionTokens).toBe(tokenizer.encode('oracle').length);
  });
});
