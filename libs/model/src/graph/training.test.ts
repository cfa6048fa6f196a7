import { describe, expect, it } from 'vitest';
import { initLora, loraSpecs, mergeLora, type LoraConfig } from '../lora';
import { initParams, type ParamMap } from '../params';
import { referenceForward } from '../reference';
import { generate } from '../sampler';
import { smallConfigs } from '../testing/configs';
import { ModelGraphs, type TokenBatch } from './model.graphs';

const [[, llama], [, qwen]] = smallConfigs();

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};

/** Σ w · log p(target) under the float64 reference. */
function referenceObjective(config: typeof llama, params: ParamMap, batch: TokenBatch, weights: Float32Array): number {
  let total = 0;
  for (let b = 0; b < batch.batch; b++) {
    const ids = Array.from(batch.ids).slice(b * batch.length, (b + 1) * batch.length);
    referenceForward(config, params, ids).forEach((logits, t) => {
      const max = Math.max(...logits);
      const lse = max + Math.log(logits.reduce((s, v) => s + Math.exp(v - max), 0));
      const i = b * batch.length + t;
      total += weights[i] * (logits[batch.targets[i]] - lse);
    });
  }
  return total;
}

/** −Σ p·log p of every position's next-token distribution under the float64 reference, (B, T). */
function referenceEntropy(config: typeof llama, params: ParamMap, batch: TokenBatch): number[] {
  const out: number[] = [];
  for (let b = 0; b < batch.batch; b++) {
    const ids = Array.from(batch.ids).slice(b * batch.length, (b + 1) * batch.length);
    for (const logits of referenceForward(config, params, ids)) {
      const max = Math.max(...logits);
      const lse = max + Math.log(logits.reduce((s, v) => s + Math.exp(v - max), 0));
      out.push(logits.reduce((h, v) => h - Math.exp(v - lse) * (v - lse), 0));
    }
  }
  return out;
}

const batch: TokenBatch = {
  batch: 2,
  length: 6,
  ids: [3, 9, 1, 4, 4, 7, 2, 2, 8, 0, 5, 6],
  targets: [9, 1, 4, 4, 7, 0, 2, 8, 0, 5, 6, 0],
};
const tokenWeights = Float32Array.from([-1, -1, -0.5, -1, -1, 0, -1, -1, -1, -2, -1, 0]);

describe('training graph', () => {
  it('returns the reference objective and log-probs, and gradients that match finite differences', async () => {
    for (const config of [llama, qwen]) {
      const params = initParams(config, 3, 0.3);
      const graphs = new ModelGraphs(config);
      const out = await graphs.trainStep(params, batch, tokenWeights);
      expect(out.loss).toBeCloseTo(referenceObjective(config, params, batch, tokenWeights), 4);
      const lp = await graphs.logprobs(params, batch);
      expect(maxAbsDiff(lp, out.logprobs)).toBeLessThan(1e-5);
      expect(maxAbsDiff(out.entropy, referenceEntropy(config, params, batch))).toBeLessThan(1e-4);
      expect(out.grads.size).toBe(graphs.trainableSpecs.length);
      const probes: [string, number][] = [
        ['model.embed_tokens.weight', 9 * config.hiddenSize + 2],
        ['model.layers.1.self_attn.q_proj.weight', 5],
        ['model.layers.0.self_attn.k_proj.weight', 17],
        ['model.layers.0.mlp.down_proj.weight', 3],
        ['model.norm.weight', 1],
      ];
      if (config.qkvBias) probes.push(['model.layers.0.self_attn.v_proj.bias', 2]);
      for (const [name, index] of probes) {
        const t = params.get(name)!;
        const original = t[index];
        const h = 1e-2;
        t[index] = original + h;
        const up = referenceObjective(config, params, batch, tokenWeights);
        t[index] = original - h;
        const down = referenceObjective(config, params, batch, tokenWeights);
        t[index] = original;
        const numeric = (up - down) / (2 * h);
        expect(Math.abs(out.grads.get(name)![index] - numeric)).toBeLessThan(2e-3 + 2e-3 * Math.abs(numeric));
      }
      await graphs.release();
    }
  });

  it('applies temperature to log-probs', async () => {
    const params = initParams(qwen, 4, 0.3);
    const graphs = new ModelGraphs(qwen);
    const lp = await graphs.logprobs(params, batch, 0.5);
    const ref = referenceForward(qwen, params, Array.from(batch.ids).slice(0, 6))[2].map((v) => v * 2);
    const max = Math.max(...ref);
    const lse = max + Math.log(ref.reduce((s, v) => s + Math.exp(v - max), 0));
    expect(lp[2]).toBeCloseTo(ref[batch.targets[2]] - lse, 4);
  });
});

describe('LoRA', () => {
  const lora: LoraConfig = { rank: 2, alpha: 4, targetModules: ['q_proj', 'v_proj', 'down_proj'] };
  const base = initParams(llama, 8, 0.3);

  it('sends gradients only to the adapters, and merged weights give the adapted logits', async () => {
    const adapters = initLora(llama, lora, 1);
    // Non-zero B so the adapters change the model and A receives gradient.
    for (const [name, t] of adapters)
      if (name.includes('lora_B')) t.forEach((_, i) => (t[i] = Math.sin(i + name.length) * 0.2));
    const graphs = new ModelGraphs(llama, { kind: 'lora', base, lora });
    expect(graphs.trainableSpecs.map((s) => s.name)).toEqual(loraSpecs(llama, lora).map((s) => s.name));
    const out = await graphs.trainStep(adapters, batch, tokenWeights);
    expect([...out.grads.keys()].every((n) => n.includes('.lora_'))).toBe(true);
    for (const g of out.grads.values()) expect(g.some((v) => v !== 0)).toBe(true);

    const merged = mergeLora(llama, base, lora, adapters);
    const full = new ModelGraphs(llama);
    const adapted = await graphs.logits(adapters, batch.ids, 2, 6);
    expect(maxAbsDiff(adapted, await full.logits(merged, batch.ids, 2, 6))).toBeLessThan(1e-4);
    expect(maxAbsDiff(adapted, await full.logits(base, batch.ids, 2, 6))).toBeGreaterThan(1e-3);
    const fullOut = await full.trainStep(merged, batch, tokenWeights);
    expect(out.loss).toBeCloseTo(fullOut.loss, 4);

    const decoder = graphs.decoder(adapters);
    const { logits } = await decoder.start([{ tokens: Array.from(batch.ids).slice(0, 6), rows: 1 }]);
    expect(maxAbsDiff(logits, adapted.subarray(5 * llama.vocabSize, 6 * llama.vocabSize))).toBeLessThan(1e-4);
    await decoder.release();
  });
});

describe('sampler on the KV-cache decoder', () => {
  it('reports the log-prob graph’s log-probs for the sampled tokens', async () => {
    const params = initParams(qwen, 12, 0.5);
    const graphs = new ModelGraphs(qwen);
    const prompt = [5, 1, 30, 2];
    const completions = await generate(graphs.decoder(params), prompt, { n: 4, maxNewTokens: 12, seed: 2 });
    const seqs = completions.map((c) => [...prompt, ...c.tokens]);
    const len = seqs[0].length;
    const lp = await graphs.logprobs(params, {
      batch: seqs.length,
      length: len - 1,
      ids: seqs.flatMap((s) => s.slice(0, -1)),
      targets: seqs.flatMap((s) => s.slice(1)),
    });
    let diff = 0;
    completions.forEach((c, r) =>
      c.logprobs.forEach((l, i) => (diff = Math.max(diff, Math.abs(l - lp[r * (len - 1) + prompt.length - 1 + i])))),
    );
    expect(diff).toBeLessThan(1e-4);
  });
});
