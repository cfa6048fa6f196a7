import { describe, expect, it } from 'vitest';
import type { DecodeBackend } from './decode';
import { initParams } from './params';
import { ReferenceDecodeBackend, referenceForward } from './reference';
import { Rng } from '@fathom/contracts';
import { generate, generateBatch, sampleToken } from './sampler';
import { smallConfigs } from './testing/configs';
import { ByteTokenizer } from './tokenizer/byte.tokenizer';

const logSoftmax = (x: ArrayLike<number>) => {
  const max = Math.max(...Array.from(x));
  const lse = max + Math.log(Array.from(x).reduce((s, v) => s + Math.exp(v - max), 0));
  return Array.from(x, (v) => v - lse);
};

describe('sampleToken', () => {
  const logits = Float32Array.from([1, 3, 2, -1, 2.5]);
  const plain = { temperature: 1, topK: 0, topP: 1 };

  it('is greedy at temperature 0 with log-prob 0', () => {
    expect(sampleToken(logits, { ...plain, temperature: 0 }, new Rng(1))).toEqual({ token: 1, logprob: 0 });
  });

  it('returns the model log-softmax at temperature 1 and draws with those frequencies', () => {
    const rng = new Rng(7);
    const counts = new Array(5).fill(0);
    const ls = logSoftmax(logits);
    for (let i = 0; i < 20000; i++) {
      const { token, logprob } = sampleToken(logits, plain, rng);
      expect(logprob).toBeCloseTo(ls[token], 12);
      counts[token]++;
    }
    ls.forEach((l, i) => expect(counts[i] / 20000).toBeCloseTo(Math.exp(l), 1));
  });

  it('renormalises over the top-k / top-p set at the given temperature', () => {
    const rng = new Rng(3);
    const seen = new Set<number>();
    for (let i = 0; i < 500; i++) {
      const { token, logprob } = sampleToken(logits, { temperature: 0.5, topK: 2, topP: 1 }, rng);
      seen.add(token);
      expect(logprob).toBeCloseTo(logSoftmax([6, 5])[token === 1 ? 0 : 1], 12);
    }
    expect([...seen].sort()).toEqual([1, 4]);
    // p(1)=0.4, p(4)=0.24, p(2)=0.15, …: top-p 0.5 keeps {1, 4}, top-p 0.3 keeps {1} alone.
    for (let i = 0; i < 200; i++) expect([1, 4]).toContain(sampleToken(logits, { ...plain, topP: 0.5 }, rng).token);
    expect(sampleToken(logits, { ...plain, topP: 0.3 }, rng)).toEqual({ token: 1, logprob: 0 });
  });
});

describe('generate', () => {
  const [, config] = smallConfigs()[0];
  const params = initParams(config, 11, 0.5);
  const backend = new ReferenceDecodeBackend(config, params);
  /** The reference backend, counting its sessions. */
  const countingStarts = () => {
    let starts = 0;
    const counting: DecodeBackend = {
      vocabSize: backend.vocabSize,
      maxLength: backend.maxLength,
      start: (prompts) => {
        starts++;
        return backend.start(prompts);
      },
    };
    return { counting, starts: () => starts };
  };

  it('prefills once for all completions and reports the model log-probs of the sampled tokens', async () => {
    const { counting, starts } = countingStarts();
    const prompt = [1, 5, 9];
    const out = await generate(counting, prompt, { n: 3, maxNewTokens: 5, seed: 4 });
    expect(starts()).toBe(1);
    expect(out).toHaveLength(3);
    let maxDiff = 0;
    for (const c of out) {
      expect(c.tokens).toHaveLength(5);
      expect(c.finishReason).toBe('length');
      const logits = referenceForward(config, params, [...prompt, ...c.tokens]);
      c.tokens.forEach((t, i) => {
        maxDiff = Math.max(maxDiff, Math.abs(logSoftmax(logits[prompt.length - 1 + i])[t] - c.logprobs[i]));
      });
    }
    expect(maxDiff).toBeLessThan(1e-5);
    expect(new Set(out.map((c) => c.tokens.join())).size).toBeGreaterThan(1);
  });

  it('samples a batch of requests in one session, each exactly as it samples alone', async () => {
    const { counting, starts } = countingStarts();
    const requests = [
      { prompt: [1, 5, 9], n: 3, maxNewTokens: 6, seed: 4 },
      { prompt: [2], n: 1, maxNewTokens: 2, seed: 9 },
      { prompt: [7, 7, 3, 0, 1], n: 2, maxNewTokens: 9, seed: 1, spanOf: [[4, 6, 8, 10, 12]] },
    ];
    const options = { temperature: 1, stopTokens: [3] };
    const batched = await generateBatch(counting, requests, options);
    expect(starts()).toBe(1);
    for (const [i, request] of requests.entries()) {
      const alone = await generate(backend, request.prompt, { ...options, ...request });
      expect(batched[i]).toEqual(alone);
    }
    expect(batched.map((r) => r.length)).toEqual([3, 1, 2]);
    expect(batched[1][0].tokens.length).toBeLessThanOrEqual(2);
  });

  it('is deterministic in the seed', async () => {
    const a = await generate(backend, [2, 3], { n: 2, maxNewTokens: 4, seed: 9 });
    const b = await generate(backend, [2, 3], { n: 2, maxNewTokens: 4, seed: 9 });
    const c = await generate(backend, [2, 3], { n: 2, maxNewTokens: 4, seed: 10 });
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  });

  it('stops on a stop token (kept) and on a stop string', async () => {
    const greedy = await generate(backend, [4], { maxNewTokens: 6, temperature: 0 });
    const stopAt = greedy[0].tokens[2];
    const first = greedy[0].tokens.indexOf(stopAt);
    const stopped = await generate(backend, [4], { maxNewTokens: 6, temperature: 0, stopTokens: [stopAt] });
    expect(stopped[0].tokens).toEqual(greedy[0].tokens.slice(0, first + 1));
    expect(stopped[0].finishReason).toBe('stop_token');

    const tok = new ByteTokenizer([]);
    const text = tok.decode(greedy[0].tokens.filter((t) => t < 256));
    const stopString = text.slice(1, 3);
    const bytes = await generate(backend, [4], { maxNewTokens: 6, temperature: 0, stopStrings: [stopString] }, tok);
    expect(bytes[0].finishReason).toBe('stop_string');
    expect(bytes[0].text?.endsWith(stopString)).toBe(true);
  });

  it('copies a span of a source token by token under spanOf, sampled or greedy, and stops only after one token', async () => {
    const stop = 0;
    const sources = [
      [7, 3, 9, 3, 11, 5],
      [2, 8],
    ];
    const isSpan = (tokens: number[]) => sources.some((s) => s.some((_, j) => tokens.every((t, i) => s[j + i] === t)));
    for (const temperature of [0, 1]) {
      const out = await generate(backend, [4, 1], {
        n: 6,
        maxNewTokens: 8,
        temperature,
        seed: 5,
        stopTokens: [stop],
        spanOf: sources,
      });
      for (const c of out) {
        const body = c.finishReason === 'stop_token' ? c.tokens.slice(0, -1) : c.tokens;
        expect(body.length).toBeGreaterThan(0);
        expect(isSpan(body)).toBe(true);
        // Within a source of 6 tokens a span ends by a stop token or by running out of source: never 'length' at 8.
        expect(c.tokens.length).toBeLessThanOrEqual(7);
      }
    }
    // The unconstrained model writes something that is not a span of the sources.
    const free = await generate(backend, [4, 1], { n: 6, maxNewTokens: 8, seed: 5, stopTokens: [stop] });
    expect(free.some((c) => !isSpan(c.tokens.filter((t) => t !== stop)))).toBe(true);
  });

  it('starts and ends a span only at word edges under spanWordTokens', async () => {
    const stop = 0;
    // Words 7 8 and 9 9 around separators 3: a span may start at offsets 0, 2, 3, 5 and end at 2, 3, 5, 6.
    const source = [7, 8, 3, 9, 9, 3];
    const seen = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const out = await generate(backend, [4, 1], {
        n: 8,
        maxNewTokens: 8,
        temperature: 1,
        seed,
        stopTokens: [stop],
        spanOf: [source],
        spanWordTokens: [7, 8, 9],
      });
      for (const c of out) {
        const body = c.finishReason === 'stop_token' ? c.tokens.slice(0, -1) : c.tokens;
        const at = [0, 1, 2, 3, 4, 5].filter((j) => body.every((t, i) => source[j + i] === t));
        const whole = at.filter((j) => ![1, 4].includes(j) && ![1, 4].includes(j + body.length));
        expect(whole.length, JSON.stringify(body)).toBeGreaterThan(0);
        seen.add(JSON.stringify(body));
      }
    }
    // Sampling at temperature 1 finds several different whole-word spans, not one.
    expect(seen.size).toBeGreaterThan(2);
    await expect(generate(backend, [4], { maxNewTokens: 2, spanWordTokens: [7] })).rejects.toThrow(/needs spanOf/);
  });

  it('renormalises the log-prob of a constrained pick over the allowed tokens', async () => {
    const prompt = [4, 1];
    const [c] = await generate(backend, prompt, { maxNewTokens: 1, temperature: 1, seed: 2, spanOf: [[6, 6], [13]] });
    const ls = logSoftmax(referenceForward(config, params, prompt)[prompt.length - 1]);
    const lse = Math.log(Math.exp(ls[6]) + Math.exp(ls[13]));
    expect([6, 13]).toContain(c.tokens[0]);
    expect(c.logprobs[0]).toBeCloseTo(ls[c.tokens[0]] - lse, 5);
  });

  it('rejects spanOf with nothing to copy or with an id outside the vocabulary', async () => {
    await expect(generate(backend, [4], { maxNewTokens: 2, spanOf: [[], []] })).rejects.toThrow(/no token to copy/);
    await expect(generate(backend, [4], { maxNewTokens: 2, spanOf: [[backend.vocabSize]] })).rejects.toThrow(
      /outside the vocabulary/,
    );
  });

  it('rejects a prompt that fills the context', async () => {
    await expect(generate(backend, new Array(64).fill(1), { maxNewTokens: 1 })).rejects.toThrow(/fills the context/);
  });
});
