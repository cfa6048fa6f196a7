import { ByteTokenizer, generate, initParams, parseHfConfig, ReferenceDecodeBackend } from '@fathom/model';
import { SandboxPool } from '@fathom/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IM_END } from '../prompt';
import { EpisodeRunner } from './episode.runner';
import type { Policy, SampleRequest } from './policy';
import { SamplerPolicy } from './sampler-policy';

/** A tiny random byte-level model: its samples are arbitrary bytes, often not valid UTF-8. */
const config = parseHfConfig({
  architectures: ['Qwen2ForCausalLM'],
  vocab_size: 260,
  hidden_size: 16,
  intermediate_size: 32,
  num_hidden_layers: 1,
  num_attention_heads: 2,
  num_key_value_heads: 1,
  head_dim: 8,
  rms_norm_eps: 1e-6,
  rope_theta: 10000,
  max_position_embeddings: 1024,
  tie_word_embeddings: true,
});
const tokenizer = new ByteTokenizer();
const backend = new ReferenceDecodeBackend(config, initParams(config, 3));
const task = { id: 'sampler-1', question: 'Which?', context: 'a short document', contextTokens: 4 };

let pool: SandboxPool;
beforeAll(async () => {
  pool = await SandboxPool.start({ workers: 1, warmIsolatesPerWorker: 2 });
});
afterAll(() => pool.close());

describe('SamplerPolicy (a @fathom/model decoder) in the episode loop', () => {
  it('stores exactly the ids and behaviour log-probs the sampler produced', async () => {
    const inner = new SamplerPolicy(backend, tokenizer, 4);
    const requests: SampleRequest[][] = [];
    const spy: Policy = {
      tokenizer,
      version: inner.version,
      maxLength: inner.maxLength,
      sample: (reqs, params) => {
        requests.push([...reqs]);
        return inner.sample(reqs, params);
      },
    };
    const runner = new EpisodeRunner(
      { sandbox: pool, policy: spy },
      { maxTokensPerTurn: 6, maxTurns: 1, promptStyle: { system: 'compact', previewChars: 16 } },
    );
    const group = await runner.runGroup(task, { G: 2, seed: 1 });
    expect(group.trajectories).toHaveLength(2);
    expect(requests[0]).toHaveLength(1);
    const request = requests[0][0];
    expect(request.n).toBe(2);
    const direct = await generate(backend, request.prompt, {
      n: 2,
      maxNewTokens: request.maxNewTokens,
      temperature: 1,
      topP: 1,
      topK: 0,
      stopTokens: [tokenizer.tokenId(IM_END)!],
      seed: request.seed,
    });
    for (const [i, traj] of group.trajectories.entries()) {
      expect(traj.policyVersion).toBe(4);
      expect(traj.ids.slice(0, traj.promptTokens)).toEqual(request.prompt);
      const modelIds = traj.ids.filter((_, k) => traj.mask[k] === 1);
      expect(modelIds).toEqual(direct[i].tokens);
      expect(traj.logprobs.filter((_, k) => traj.mask[k] === 1)).toEqual(direct[i].logprobs);
      expect(direct[i].logprobs.every((l) => l < 0)).toBe(true);
    }
  });

  it('runs several groups as one batch per turn, each group sampling exactly as it does alone', async () => {
    const calls: SampleRequest[][] = [];
    const inner = new SamplerPolicy(backend, tokenizer, 0);
    const spy: Policy = {
      tokenizer,
      version: 0,
      maxLength: inner.maxLength,
      sample: (reqs, params) => {
        calls.push([...reqs]);
        return inner.sample(reqs, params);
      },
    };
    const episode = { maxTokensPerTurn: 8, maxTurns: 2, promptStyle: { system: 'compact' as const, previewChars: 16 } };
    const other = { ...task, id: 'sampler-2', question: 'Who?' };
    const groups = [
      { task, seed: 5 },
      { task: other, seed: 6 },
      { task, seed: 7 },
    ];
    const together = await new EpisodeRunner({ sandbox: pool, policy: spy }, episode).runGroups(groups, 3);
    // The first turn: one call, one request (n = 3) per group, even for two groups of the same task.
    expect(calls[0].map((r) => r.n)).toEqual([3, 3, 3]);
    expect(calls.length).toBeLessThanOrEqual(episode.maxTurns);
    const alone = new EpisodeRunner({ sandbox: pool, policy: inner }, episode);
    for (const [i, { task: t, seed }] of groups.entries()) {
      const group = await alone.runGroup(t, { G: 3, seed });
      const tokens = (g: typeof group) => g.trajectories.map((traj) => [traj.ids, traj.logprobs, traj.status]);
      expect(together[i].taskId).toBe(t.id);
      expect(tokens(together[i])).toEqual(tokens(group));
    }
  });

  it('answers an extractive leaf read with a span of whole words of its chunk or "unknown", where a free read does not', async () => {
    const policy = new SamplerPolicy(backend, tokenizer, 0);
    const chunk = 'The Pelmor Accord of 1911 was signed in Dunvask.';
    const read = async (extractive: boolean, seed: number) => {
      const runner = new EpisodeRunner(
        { sandbox: pool, policy },
        { subcalls: { extractive, maxCompletionTokens: 16 } },
      );
      const { response } = await runner.serveCall(
        'reader',
        { prompt: 'Where was it signed?', chunk, depth: 1, episodeId: 'reader', tokenBudget: 1024 },
        seed,
      );
      return response.text;
    };
    const seeds = [0, 1, 2, 3, 4, 5];
    const extractive = await Promise.all(seeds.map((seed) => read(true, seed)));
    // A span of whole words: it never starts or ends between two letters or digits of the chunk ("unknown" is one).
    const word = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}]/u.test(ch);
    const edge = (text: string, i: number) => !(word(text[i - 1]) && word(text[i]));
    const wholeWords = (source: string, text: string) =>
      [...source.matchAll(/(?=)/g)].some(
        ({ index: i }) => source.startsWith(text, i) && edge(source, i) && edge(source, i + text.length),
      );
    for (const text of extractive) {
      expect(text.length).toBeGreaterThan(0);
      expect(wholeWords(chunk, text) || text === 'unknown', text).toBe(true);
    }
    const free = await Promise.all(seeds.map((seed) => read(false, seed)));
    expect(free.some((text) => !chunk.includes(text) && !'unknown'.includes(text))).toBe(true);
  });

  it('rejects an episode config that trains neither the root nor the sub-calls', () => {
    const runner = (trainSubcalls: boolean) =>
      new EpisodeRunner(
        { sandbox: pool, policy: new SamplerPolicy(backend, tokenizer, 0) },
        { trainRoot: false, trainSubcalls, subcalls: { extractive: true } },
      );
    expect(() => runner(false)).toThrow(/trainRoot false needs trainSubcalls[\s\S]*at trainSubcalls/);
    expect(runner(true).config.trainRoot).toBe(false);
  });
});
