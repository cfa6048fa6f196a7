import {
  EpisodeTrajectorySchema,
  type EpisodeStatus,
  type EpisodeTrajectory,
  type EpisodeTurn,
  type GroupRollout,
  type InfraErrorCode,
  type InfraFailure,
  type RecursionTreeNode,
  type StopReason,
  type Task,
  type TokenSequence,
} from '@fathom/contracts';
import type { LlmRequest, LlmResponse, SandboxEpisode, SandboxPool, StepResult } from '@fathom/sandbox';
import { estimateTokens } from '@fathom/tasks';
import { z } from 'zod';
import { IM_END, renderConversation, renderPrompt, renderSubcallPrompt, type PromptTask } from '../prompt';
import { planSubcall } from '../subcall';
import { applyTurn } from '../turn';
import { episodeEnd, type ActionOutcome } from './ending';
import { resolveEpisodeConfig, type EpisodeConfig, type EpisodeConfigInput } from './episode.config';
import { RolloutError } from './errors';
import { observationText } from '../teacher/observation';
import { NO_ACTION_OBSERVATION } from './observation';
import type { Policy, SampledContinuation, SampleRequest, SamplingParams, SpanReadResult } from './policy';
import { encodeSegments, extractiveSpan, prefixMismatch, TokenMismatchError } from './tokens';

/** What an episode needs of a task: the prompt's fields plus an id (the sandbox's document cache key). */
export interface EpisodeTask extends PromptTask {
  id: string;
}

export function episodeTaskOf(task: Pick<Task, 'id' | 'question' | 'context' | 'context_tokens'>): EpisodeTask {
  return { id: task.id, question: task.question, context: task.context, contextTokens: task.context_tokens };
}

/** A leaf `llm()` call as a reader other than the policy sees it. */
export interface LeafCall {
  /** Id of the root episode's task (whose ground truth an oracle reader consults). */
  taskId: string;
  question: string;
  chunk: string | undefined;
}

/** Answers leaf calls instead of the policy (the oracle-reader evaluation); never used in training. */
export type LeafReader = (call: LeafCall) => string;

export interface EpisodeRunnerDeps {
  sandbox: Pick<SandboxPool, 'openEpisode'>;
  policy: Policy;
  /** Reads leaf calls in place of the policy; child episodes are still driven by the policy. */
  leafReader?: LeafReader;
  /**
   * Samples leaf reads in place of the policy (an API model behind `--subcalls`); child episodes are still driven by
   * the policy, and a `leafReader` wins over it.
   */
  readerPolicy?: Policy;
  /** Sees every leaf call that returned, with its answer (the eval's leaf accuracy against gold sub-answers). */
  onLeaf?: (call: LeafCall, answer: string) => void;
  /**
   * Sees each turn of a root episode once it is finished (code run, observation set), before the episode's next
   * turn is sampled: the hook for streaming an episode while it runs. Child episodes' turns are not reported. Must
   * not throw.
   */
  onTurn?: (event: TurnEvent) => void;
  /** Milliseconds clock for timings; `performance.now` by default. */
  now?: () => number;
}

/** A finished turn of a root episode, as `EpisodeRunnerDeps.onTurn` sees it. */
export interface TurnEvent {
  sampleIndex: number;
  /** Position of the turn in its episode, from 0. */
  index: number;
  turn: EpisodeTurn;
}

export interface RunGroupOptions {
  /** Episodes in the group (GRPO's G). */
  G: number;
  /** Base seed; each request's seed is derived from it, the sample index and the turn. */
  seed: number;
}

/** A 32-bit seed from a base seed and a path of small integers (FNV-1a over their bytes). */
function pathSeed(base: number, path: readonly number[]): number {
  let h = 0x811c9dc5;
  for (const value of [base, ...path]) {
    let v = value >>> 0;
    for (let i = 0; i < 4; i++) {
      h = Math.imul(h ^ (v & 0xff), 0x01000193);
      v >>>= 8;
    }
  }
  return h >>> 0;
}

/** A recursion tree node before anything ran under it. */
function emptyNode(
  depth: number,
  kind: RecursionTreeNode['kind'],
  prompt: string,
  chunkChars: number,
): RecursionTreeNode {
  return {
    depth,
    kind,
    prompt,
    chunkChars,
    answer: null,
    promptTokens: 0,
    completionTokens: 0,
    latencyMs: 0,
    turns: 0,
    children: [],
  };
}

/** The id of `<|im_end|>` in a policy's tokenizer, which ends every turn the loop samples. */
function imEndOf(policy: Policy, which: string): number {
  const imEnd = policy.tokenizer.tokenId(IM_END);
  if (imEnd === undefined)
    throw new RolloutError('INVALID_TOKENIZER', `the tokenizer of ${which} has no id for ${IM_END}`);
  return imEnd;
}

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** One running episode (root or child): its sandbox, its exact token sequence and its node of the recursion tree. */
class EpisodeState {
  sandbox: SandboxEpisode | null = null;
  seq: TokenSequence;
  readonly initialPromptTokens: number;
  readonly sampled: SampledContinuation[] = [];
  readonly turns: EpisodeTurn[] = [];
  answer: string | null = null;
  /** The sum of the rewards the sandbox's environment reported, or null while it has reported none. */
  envReward: number | null = null;
  status: EpisodeStatus | null = null;
  stopReason: StopReason | null = null;
  infraError: { code: InfraErrorCode; message: string } | undefined;
  readonly startedAt: number;

  constructor(
    /** Id of the root episode's task; a child episode carries its root's. */
    readonly taskId: string,
    readonly task: PromptTask,
    readonly node: RecursionTreeNode,
    /** Seed path: [sampleIndex, callIndex, …]. */
    readonly path: readonly number[],
    readonly parent: EpisodeState | null,
    readonly maxTurns: number,
    /** Cap on the whole sequence's length (prompt, turns, observations). */
    readonly tokenLimit: number,
    prompt: TokenSequence,
    now: number,
  ) {
    this.seq = prompt;
    this.initialPromptTokens = prompt.ids.length;
    this.startedAt = now;
  }

  /** The version the root episode was sampled with; every sub-call must be sampled with the same. */
  policyVersion = 0;

  get root(): EpisodeState {
    return this.parent === null ? this : this.parent.root;
  }

  get done(): boolean {
    return this.status !== null;
  }

  finish(status: EpisodeStatus, stopReason: StopReason): void {
    if (this.status === null) {
      this.status = status;
      this.stopReason = stopReason;
    }
  }

  /** Ends this episode and every ancestor as `infra_error`: a root cannot be scored over a broken sub-call. */
  failInfra(code: InfraErrorCode, message: string): void {
    if (this.status !== 'infra_error') {
      this.status = 'infra_error';
      this.stopReason = 'infra';
      this.infraError = { code, message };
    }
    this.parent?.failInfra(code, message);
  }

  get sampledTokens(): number {
    return this.sampled.reduce((n, c) => n + c.tokens.length, 0);
  }

  /** Prompt plus completion tokens of every sub-call of this episode, at every depth below it. */
  get subcallTokens(): number {
    return this.node.children.reduce((n, c) => n + c.promptTokens + c.completionTokens, 0);
  }

  /** Adds the reward the environment gave with a step, if it gave one. */
  rewarded(result: { reward?: number }): void {
    if (result.reward !== undefined) this.envReward = (this.envReward ?? 0) + result.reward;
  }

  async close(): Promise<void> {
    // Closing an episode whose worker died can reject; the failure was already recorded from the step result.
    await this.sandbox?.close().catch(() => undefined);
  }
}

/**
 * Runs RLM episodes: render the prompt, sample a turn, run its code in the sandbox, append the observation, repeat
 * until an answer (an `<answer>` tag, or a code cell that calls `answer(value)`), the turn limit or the token limit. Token-in, token-out: a trajectory's ids are the exact
 * ids the policy was fed and sampled; every turn's prompt is re-rendered through the one prompt renderer and must
 * extend the previous ids exactly, or the trajectory fails (`infra_error`, code `token_mismatch`) with a diff.
 *
 * `llm()` calls of the code are served by the same policy with the one meaning of `llm()` (`planSubcall`): a leaf
 * read (`renderSubcallPrompt`) of a chunk within the reader window — by the `readerPolicy` when one is given — and a
 * child episode over a larger chunk. Every call is a node of the trajectory's recursion tree, marked leaf or episode.
 */
export class EpisodeRunner {
  readonly config: EpisodeConfig;
  private readonly imEnd: number;
  private readonly now: () => number;
  private readonly params: SamplingParams;
  /** What samples leaf reads: the reader policy, else the policy, with its own end-of-turn id. */
  private readonly reader: { policy: Policy; imEnd: number; params: SamplingParams };
  /** The policy whose tokens are trained, whose version every trajectory carries: the reader when `trainRoot` is off. */
  private readonly trained: Policy;

  constructor(
    private readonly deps: EpisodeRunnerDeps,
    config: EpisodeConfigInput = {},
  ) {
    this.config = resolveEpisodeConfig(config);
    this.imEnd = imEndOf(deps.policy, 'the policy');
    this.now = deps.now ?? (() => performance.now());
    this.params = { ...this.config.sampling, stopTokens: [this.imEnd] };
    const reader = deps.readerPolicy ?? deps.policy;
    const readerImEnd = imEndOf(reader, 'the reader policy');
    const temperature = this.config.subcalls.leafTemperature ?? this.params.temperature;
    this.reader = {
      policy: reader,
      imEnd: readerImEnd,
      params: { ...this.params, temperature, stopTokens: [readerImEnd] },
    };
    this.trained = this.config.trainRoot ? deps.policy : reader;
  }

  /** Runs G episodes of one task: `runGroups` with one group. */
  async runGroup(task: EpisodeTask, options: RunGroupOptions): Promise<GroupRollout> {
    const [group] = await this.runGroups([{ task, seed: options.seed }], options.G);
    return group;
  }

  /**
   * Runs G episodes of each task, every group at once and turn-synchronously: each turn's sampling for all
   * unfinished episodes of all groups is one batched policy call (episodes of one group with identical prompts, as
   * at the first turn, share one request and its prefill). A group's episodes depend only on its task and seed,
   * not on the other groups of the call. A sample that ends in `infra_error` is rerun (fresh sandbox, same seed)
   * up to `maxInfraRetries` times, then excluded; it is never scored as 0.
   */
  async runGroups(groups: readonly { task: EpisodeTask; seed: number }[], G: number): Promise<GroupRollout[]> {
    if (!Number.isInteger(G) || G < 1)
      throw new RolloutError('INVALID_ARGUMENT', `G must be a positive integer, got ${G}`);
    const rollouts = groups.map(({ task }) => ({
      kept: new Map<number, EpisodeTrajectory>(),
      excluded: [] as EpisodeTrajectory[],
      infraFailures: [] as InfraFailure[],
      taskId: task.id,
    }));
    let pending = groups.flatMap((_, group) => Array.from({ length: G }, (_, sampleIndex) => ({ group, sampleIndex })));
    for (let attempt = 0; pending.length > 0; attempt++) {
      const trajectories = await this.runAttempt(groups, pending, attempt);
      const ran = pending;
      pending = [];
      trajectories.forEach((traj, i) => {
        const { group } = ran[i];
        const rollout = rollouts[group];
        if (traj.status !== 'infra_error') {
          rollout.kept.set(traj.sampleIndex, traj);
          return;
        }
        const failure = traj.infraError ?? { code: 'invalid_trajectory' as const, message: 'no infra error recorded' };
        rollout.infraFailures.push({ sampleIndex: traj.sampleIndex, attempt, ...failure });
        if (attempt < this.config.maxInfraRetries) pending.push(ran[i]);
        else rollout.excluded.push(traj);
      });
    }
    return rollouts.map(({ taskId, kept, excluded, infraFailures }) => ({
      taskId,
      trajectories: [...kept.values()].sort((a, b) => a.sampleIndex - b.sampleIndex),
      excluded,
      infraFailures,
    }));
  }

  private async runAttempt(
    groups: readonly { task: EpisodeTask; seed: number }[],
    samples: readonly { group: number; sampleIndex: number }[],
    attempt: number,
  ): Promise<EpisodeTrajectory[]> {
    const policyVersion = this.trained.version;
    const states = await Promise.all(
      samples.map(({ group, sampleIndex }) => {
        const { task, seed } = groups[group];
        return this.openEpisode({
          taskId: task.id,
          task,
          ctxKey: task.id,
          depth: 0,
          kind: 'root',
          prompt: task.question,
          path: [seed, sampleIndex],
          parent: null,
          maxTurns: this.config.maxTurns,
          tokenLimit: this.config.maxEpisodeTokens,
        });
      }),
    );
    for (const state of states) state.policyVersion = policyVersion;
    try {
      await this.drive(states, policyVersion);
    } finally {
      await Promise.all(states.map((s) => s.close()));
    }
    return states.map((state, i) =>
      this.toTrajectory(state, groups[samples[i].group].task.id, samples[i].sampleIndex, attempt, policyVersion),
    );
  }

  private async openEpisode(spec: {
    taskId: string;
    task: PromptTask;
    ctxKey?: string;
    depth: number;
    kind: RecursionTreeNode['kind'];
    prompt: string;
    path: number[];
    parent: EpisodeState | null;
    maxTurns: number;
    tokenLimit: number;
  }): Promise<EpisodeState> {
    const node = emptyNode(spec.depth, spec.kind, spec.prompt, spec.task.context.length);
    const prompt = encodeSegments(renderPrompt(spec.task, this.config.promptStyle), [], this.deps.policy.tokenizer);
    const state = new EpisodeState(
      spec.taskId,
      spec.task,
      node,
      spec.path,
      spec.parent,
      spec.maxTurns,
      spec.tokenLimit,
      prompt,
      this.now(),
    );
    try {
      state.sandbox = await this.deps.sandbox.openEpisode({
        ctx: spec.task.context,
        ctxKey: spec.ctxKey,
        question: spec.task.question,
        depth: spec.depth,
        limits: this.config.sandboxLimits,
        llm: (req) => this.serveSubcall(state, req),
      });
    } catch (error) {
      state.failInfra('worker_crashed', `could not open a sandbox episode: ${errorMessage(error)}`);
    }
    return state;
  }

  /** Turn-synchronous loop over episodes: one batched sampling call per turn, then every episode's step at once. */
  private async drive(states: readonly EpisodeState[], policyVersion: number): Promise<void> {
    const policy = this.deps.policy;
    for (;;) {
      const groups = new Map<string, { members: EpisodeState[]; request: SampleRequest }>();
      for (const state of states) {
        if (state.done) continue;
        const length = state.seq.ids.length;
        const room = Math.min(this.config.maxTokensPerTurn, state.tokenLimit - length, policy.maxLength - length);
        if (room < 1) {
          state.finish('truncated', 'token_limit');
          continue;
        }
        // Only one group's episodes (its task and seed, path[0]) share a request: a group samples as it would alone.
        const key = `${state.taskId}:${state.path[0]}:${room}:${state.seq.ids.join(',')}`;
        const group = groups.get(key);
        if (group) {
          group.members.push(state);
          group.request.n++;
        } else {
          const seed = pathSeed(0, [...state.path, state.turns.length]);
          // Root turns reuse the decoded prefix of their last turn. Child episodes do not: they run concurrently,
          // in the sandbox step phase, so their use of the policy's kept prefixes would depend on timing.
          const reuse = state.parent === null;
          groups.set(key, {
            members: [state],
            request: { prompt: state.seq.ids, n: 1, maxNewTokens: room, seed, reuse },
          });
        }
      }
      if (groups.size === 0) return;
      const batch = [...groups.values()];
      const started = this.now();
      const results = await this.sampleBatch(
        batch.map((g) => g.request),
        policyVersion,
      );
      const generationMs = this.now() - started;
      const live = batch.flatMap((g, i) => {
        const result = results[i];
        if (typeof result === 'string') {
          for (const s of g.members) s.failInfra('policy_error', result);
          return [];
        }
        return g.members.map((s, j) => ({ state: s, sampled: result[j] }));
      });
      await Promise.all(live.map(({ state, sampled }) => this.step(state, sampled, generationMs)));
      this.reportTurns(live.map(({ state }) => state));
    }
  }

  /**
   * One policy call for all `requests`; each result is the request's continuations, or why they cannot be used.
   * When the batched call fails, each request is tried alone, so one bad request fails only its own episodes.
   */
  private async sampleBatch(
    requests: readonly SampleRequest[],
    policyVersion: number,
  ): Promise<(SampledContinuation[] | string)[]> {
    const policy = this.deps.policy;
    const attempt = async (batch: readonly SampleRequest[]): Promise<SampledContinuation[][]> => {
      const results = await policy.sample(batch, this.params);
      const problem = this.checkSamples(batch, results);
      if (problem !== null) throw new Error(problem);
      if (this.trained.version !== policyVersion)
        throw new Error(`policy version changed mid-episode from ${policyVersion} to ${this.trained.version}`);
      return results;
    };
    try {
      return await attempt(requests);
    } catch (error) {
      if (requests.length === 1) return [errorMessage(error)];
      const alone: (SampledContinuation[] | string)[] = [];
      for (const request of requests) {
        try {
          alone.push((await attempt([request]))[0]);
        } catch (err) {
          alone.push(errorMessage(err));
        }
      }
      return alone;
    }
  }

  /** Hands the turn each root episode just finished to `onTurn`; a root episode's seed path is [seed, sampleIndex]. */
  private reportTurns(states: readonly EpisodeState[]): void {
    const onTurn = this.deps.onTurn;
    if (onTurn === undefined) return;
    for (const state of states) {
      const turn = state.turns.at(-1);
      if (state.parent === null && turn !== undefined)
        onTurn({ sampleIndex: state.path[1], index: state.turns.length - 1, turn });
    }
  }

  /** Why a policy's answer to a batch cannot be used, or null. */
  private checkSamples(requests: readonly SampleRequest[], results: SampledContinuation[][]): string | null {
    if (results.length !== requests.length)
      return `policy returned ${results.length} results for ${requests.length} requests`;
    for (let i = 0; i < requests.length; i++) {
      if (results[i].length !== requests[i].n)
        return `policy returned ${results[i].length} continuations for a request of n=${requests[i].n}`;
      for (const c of results[i]) {
        if (c.tokens.length === 0 || c.tokens.length > requests[i].maxNewTokens)
          return `policy returned ${c.tokens.length} tokens for maxNewTokens=${requests[i].maxNewTokens}`;
        if (c.logprobs.length !== c.tokens.length)
          return `policy returned ${c.logprobs.length} log-probs for ${c.tokens.length} tokens`;
      }
    }
    return null;
  }

  /** Applies one sampled turn to an episode: run its code, then re-render and extend the prompt. */
  private async step(state: EpisodeState, sampled: SampledContinuation, generationMs: number): Promise<void> {
    const tokenizer = this.deps.policy.tokenizer;
    state.sampled.push(sampled);
    // A new sequence, not pushes onto the old one: the prompt array handed to the policy must never change.
    state.seq = {
      ids: [...state.seq.ids, ...sampled.tokens],
      logprobs: [...state.seq.logprobs, ...sampled.logprobs],
      mask: [...state.seq.mask, ...sampled.tokens.map(() => 1)],
    };
    const endsTurn = sampled.finishReason === 'stop_token' && sampled.tokens.at(-1) === this.imEnd;
    const turn: EpisodeTurn = {
      completion: tokenizer.decode(endsTurn ? sampled.tokens.slice(0, -1) : sampled.tokens),
      action: 'none',
      observation: null,
      completionTokens: sampled.tokens.length,
      sandboxError: null,
      finishReason: sampled.finishReason,
      generationMs,
      envMs: 0,
    };
    state.turns.push(turn);
    if (!endsTurn) {
      state.finish('truncated', 'token_limit');
      return;
    }

    const started = this.now();
    let outcome: Awaited<ReturnType<typeof applyTurn>>;
    try {
      if (state.sandbox === null) throw new Error('no sandbox episode');
      outcome = await applyTurn(state.sandbox, turn.completion);
      if (outcome.kind === 'answer' && this.config.submitAnswers && state.parent === null)
        state.rewarded(await this.submitAnswer(state.sandbox, outcome.answer));
    } catch (error) {
      state.failInfra('worker_crashed', `sandbox step failed: ${errorMessage(error)}`);
      return;
    } finally {
      turn.envMs = this.now() - started;
    }
    turn.action = outcome.kind;
    if (state.done) return;

    if (outcome.kind === 'code') {
      turn.sandboxError = outcome.result.error?.code ?? null;
      state.rewarded(outcome.result);
    }
    const action: ActionOutcome =
      outcome.kind === 'code'
        ? outcome.result
        : { answer: outcome.kind === 'answer' ? outcome.answer : null, error: null, alive: true };
    // An answer (an answer action, or a cell that called answer()) ends the episode with that value; the turn then
    // gets no observation.
    const end = episodeEnd(action, state.turns.length, state.maxTurns);
    if (end !== null) {
      if ('infra' in end) state.failInfra('worker_crashed', end.infra);
      else {
        state.answer = action.answer;
        state.finish(end.status, end.stopReason);
      }
      return;
    }
    turn.observation = outcome.kind === 'code' ? observationText(outcome.result) : NO_ACTION_OBSERVATION;

    const rendered = encodeSegments(
      renderConversation(
        state.task,
        state.turns.map((t) => ({ completion: t.completion, observation: t.observation ?? undefined })),
        this.config.promptStyle,
      ),
      state.sampled,
      tokenizer,
    );
    const diff = prefixMismatch(state.seq, rendered, tokenizer);
    if (diff !== null) {
      state.failInfra('token_mismatch', new TokenMismatchError(state.turns.length, diff).message);
      return;
    }
    // An observation that leaves no room for another token is never fed: the sequence stays within the limit.
    if (rendered.ids.length >= Math.min(state.tokenLimit, this.deps.policy.maxLength)) {
      turn.observation = null;
      state.finish('truncated', 'token_limit');
      return;
    }
    state.seq = rendered;
  }

  /**
   * Gives a root episode's text answer to its environment (`submitAnswers`), whose reply carries the reward; throws
   * when the sandbox cannot take an answer or the environment failed on it (the turn's infra failure).
   */
  private async submitAnswer(sandbox: SandboxEpisode, answer: string): Promise<StepResult> {
    if (sandbox.submit === undefined)
      throw new Error('submitAnswers: this sandbox has no environment to give the answer to');
    const result = await sandbox.submit(answer);
    if (result.error?.code === 'worker_crashed')
      throw new Error(`the environment failed on the answer: ${result.error.message}`);
    return result;
  }

  /**
   * Serves one `llm()` call of an episode this runner does not drive (the env-service's, whose turns come from an
   * outside client), with the same meaning as in rollouts: a leaf read or a child episode over the chunk. Rejects
   * when the policy failed (an infra failure, not a guest error); the guest sees the rejection as an `LlmError`.
   */
  async serveCall(
    taskId: string,
    req: LlmRequest,
    seed = 0,
  ): Promise<{ response: LlmResponse; node: RecursionTreeNode }> {
    const caller = new EpisodeState(
      taskId,
      { question: '', context: '', contextTokens: 0 },
      emptyNode(req.depth - 1, 'root', '', 0),
      [seed],
      null,
      0,
      0,
      { ids: [], logprobs: [], mask: [] },
      this.now(),
    );
    caller.policyVersion = this.trained.version;
    const response = await this.serveSubcall(caller, req);
    return { response, node: caller.node.children[0] };
  }

  /**
   * The LlmHandler of an episode, with the one meaning of `llm()` (`planSubcall`): a leaf read of a chunk that fits
   * the reader window, a child episode over a larger one. The sandbox has already refused calls beyond `maxDepth`.
   */
  private async serveSubcall(parent: EpisodeState, req: LlmRequest): Promise<LlmResponse> {
    if (!this.config.subcalls.enabled) throw new Error('llm() is disabled in this episode; answer with code alone');
    const started = this.now();
    const path = [...parent.path, parent.node.children.length];
    let node: RecursionTreeNode | null = null;
    try {
      if (planSubcall(req.chunk?.length, this.config.subcalls.readerWindowChars) === 'episode') {
        const chunk = req.chunk ?? '';
        const child = await this.openEpisode({
          taskId: parent.taskId,
          task: { question: req.prompt, context: chunk, contextTokens: estimateTokens(chunk) },
          depth: req.depth,
          kind: 'episode',
          prompt: req.prompt,
          path,
          parent,
          maxTurns: this.config.subcalls.maxTurns,
          tokenLimit: Math.min(this.config.maxEpisodeTokens, req.tokenBudget),
        });
        node = child.node;
        parent.node.children.push(node);
        try {
          await this.drive([child], child.root.policyVersion);
        } finally {
          await child.close();
        }
        if (child.status === 'infra_error') throw new Error(`sub-call failed: ${child.infraError?.message ?? ''}`);
        const completion = child.sampledTokens;
        node.answer = child.answer ?? child.turns.at(-1)?.completion ?? '';
        node.turns = child.turns.length;
        node.promptTokens = child.seq.ids.length - completion;
        node.completionTokens = completion + child.subcallTokens;
        // A child episode is the root policy's work: trained only when the root is.
        if (this.config.trainSubcalls && this.config.trainRoot) node.sequence = child.seq;
      } else {
        node = { ...emptyNode(req.depth, 'leaf', req.prompt, req.chunk?.length ?? 0), turns: 1 };
        parent.node.children.push(node);
        await this.leafRead(parent, node, req, path);
        this.deps.onLeaf?.({ taskId: parent.taskId, question: req.prompt, chunk: req.chunk }, node.answer ?? '');
      }
      return { text: node.answer ?? '', promptTokens: node.promptTokens, completionTokens: node.completionTokens };
    } catch (error) {
      if (node !== null) node.error = errorMessage(error);
      throw error;
    } finally {
      if (node !== null) node.latencyMs = this.now() - started;
    }
  }

  /** A leaf call: one direct completion of the sub-call prompt by the reader (see `reader`), or the leaf reader's answer. */
  private async leafRead(parent: EpisodeState, node: RecursionTreeNode, req: LlmRequest, path: number[]) {
    const { policy, imEnd, params } = this.reader;
    const prompt = encodeSegments(renderSubcallPrompt(req.prompt, req.chunk), [], policy.tokenizer);
    node.promptTokens = prompt.ids.length;
    if (this.deps.leafReader !== undefined) {
      node.answer = this.deps.leafReader({ taskId: parent.taskId, question: req.prompt, chunk: req.chunk });
      node.completionTokens = policy.tokenizer.encode(node.answer).length;
      return;
    }
    if (policy.readSpan !== undefined && req.chunk !== undefined) {
      await this.spanRead(parent, node, req, path, policy, policy.readSpan);
      return;
    }
    const room = Math.min(
      this.config.subcalls.maxCompletionTokens,
      req.tokenBudget - prompt.ids.length,
      policy.maxLength - prompt.ids.length,
    );
    // The guest sees this as an LlmError it can handle: its own chunk was too large, not an infra failure.
    if (room < 1)
      throw new Error(`llm() prompt of ${prompt.ids.length} tokens leaves no room (token budget ${req.tokenBudget})`);
    const span =
      this.config.subcalls.extractive && req.chunk
        ? extractiveSpan(req.chunk, policy.tokenizer, params.stopTokens)
        : undefined;
    let sampled: SampledContinuation;
    try {
      const results = await policy.sample(
        [
          {
            prompt: prompt.ids,
            n: 1,
            maxNewTokens: room,
            seed: pathSeed(0, [...path, 0]),
            spanOf: span?.sources,
            spanWordTokens: span?.wordTokens,
          },
        ],
        params,
      );
      const problem = this.checkSamples([{ prompt: prompt.ids, n: 1, maxNewTokens: room, seed: 0 }], results);
      if (problem !== null) throw new Error(problem);
      sampled = results[0][0];
    } catch (error) {
      parent.failInfra('policy_error', `llm() sub-call: ${errorMessage(error)}`);
      throw error;
    }
    const endsTurn = sampled.finishReason === 'stop_token' && sampled.tokens.at(-1) === imEnd;
    node.answer = policy.tokenizer.decode(endsTurn ? sampled.tokens.slice(0, -1) : sampled.tokens);
    node.completionTokens = sampled.tokens.length;
    if (this.config.trainSubcalls) {
      node.sequence = {
        ids: [...prompt.ids, ...sampled.tokens],
        logprobs: [...prompt.logprobs, ...sampled.logprobs],
        mask: [...prompt.mask, ...sampled.tokens.map(() => 1)],
        ...(span === undefined ? {} : { span }),
      };
    }
  }

  /**
   * A leaf read by the reader's span head: the chunk's span (or "unknown") the head chooses — the best one, or one drawn
   * at the leaf temperature — recorded on the node with its probability (`node.read`).
   */
  private async spanRead(
    parent: EpisodeState,
    node: RecursionTreeNode,
    req: LlmRequest,
    path: number[],
    policy: Policy,
    readSpan: NonNullable<Policy['readSpan']>,
  ) {
    let read: SpanReadResult;
    try {
      read = await readSpan.call(policy, {
        question: req.prompt,
        chunk: req.chunk ?? '',
        temperature: this.reader.params.temperature,
        seed: pathSeed(0, [...path, 0]),
      });
    } catch (error) {
      parent.failInfra('policy_error', `llm() sub-call: ${errorMessage(error)}`);
      throw error;
    }
    node.answer = read.text;
    node.promptTokens = read.promptTokens;
    node.completionTokens = read.answered ? read.end - read.start + 1 : 1;
    node.read = {
      head: 'span',
      start: read.start,
      end: read.end,
      logprob: read.logprob,
      probability: Math.exp(read.logprob),
      ...(this.config.trainSubcalls && read.input !== undefined && { input: read.input }),
    };
  }

  private toTrajectory(
    state: EpisodeState,
    taskId: string,
    sampleIndex: number,
    attempt: number,
    policyVersion: number,
  ): EpisodeTrajectory {
    const completion = state.sampledTokens;
    const subcall = state.subcallTokens;
    const totalMs = this.now() - state.startedAt;
    const node = state.node;
    node.answer = state.answer;
    node.turns = state.turns.length;
    node.promptTokens = state.seq.ids.length - completion;
    node.completionTokens = completion + subcall;
    node.latencyMs = totalMs;
    const status = state.status ?? 'infra_error';
    const trajectory: EpisodeTrajectory = {
      taskId,
      sampleIndex,
      attempt,
      status,
      stopReason: state.stopReason ?? 'infra',
      ...(status === 'infra_error'
        ? { infraError: state.infraError ?? { code: 'invalid_trajectory', message: 'episode never finished' } }
        : {}),
      turns: state.turns,
      answer: state.answer,
      ids: state.seq.ids,
      logprobs: state.seq.logprobs,
      mask: state.seq.mask,
      promptTokens: state.initialPromptTokens,
      tokens: {
        completion,
        observation: state.seq.ids.length - state.initialPromptTokens - completion,
        subcall,
      },
      recursionTree: node,
      policyVersion,
      trainSubcalls: this.config.trainSubcalls,
      trainRoot: this.config.trainRoot,
      ...(state.envReward === null ? {} : { envReward: state.envReward }),
      timings: {
        generationMs: state.turns.reduce((t, turn) => t + turn.generationMs, 0),
        envMs: state.turns.reduce((t, turn) => t + turn.envMs, 0),
        totalMs,
      },
    };
    const parsed = EpisodeTrajectorySchema.safeParse(trajectory);
    if (parsed.success || status === 'infra_error') return trajectory;
    return {
      ...trajectory,
      status: 'infra_error',
      stopReason: 'infra',
      infraError: { code: 'invalid_trajectory', message: z.prettifyError(parsed.error) },
    };
  }
}
