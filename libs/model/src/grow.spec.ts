import { describe, expect, it } from 'vitest';
import { ModelError } from './errors';
import { growDepth, growthPlan } from './grow';
import { initParams, paramSpecs } from './params';
import { referenceForward } from './reference';
import { smallConfigs } from './testing/configs';

const [[, llama], [, qwen]] = smallConfigs();
const ids = [3, 14, 15, 9, 2, 6, 5, 35];

describe('growDepth', () => {
  it('spreads inserted blocks evenly: a twin for every layer, or one after every other', () => {
    expect(growthPlan(2, 2)).toEqual([
      { source: 0, inserted: false },
      { source: 0, inserted: true },
      { source: 1, inserted: false },
      { source: 1, inserted: true },
    ]);
    expect(growthPlan(4, 2).map((p) => `${p.source}${p.inserted ? '+' : ''}`)).toEqual([
      '0',
      '1',
      '1+',
      '2',
      '3',
      '3+',
    ]);
  });

  it.each([
    ['llama', llama],
    ['qwen (q/k/v biases)', qwen],
  ])('computes the same logits as the model it grows (%s)', (_name, config) => {
    const params = initParams(config, 5, 0.3);
    const grown = growDepth({ config, params, tokenizer: null, generationConfig: null }, config.numLayers * 2 + 1);
    expect(grown.config.numLayers).toBe(config.numLayers * 2 + 1);
    expect([...grown.params.keys()]).toEqual(paramSpecs(grown.config).map((s) => s.name));
    const before = referenceForward(config, params, ids);
    const after = referenceForward(grown.config, grown.params, ids);
    for (let t = 0; t < ids.length; t++) {
      for (let v = 0; v < config.vocabSize; v++) expect(after[t][v]).toBeCloseTo(before[t][v], 5);
    }
  });

  it('inserts trainable blocks: the copied weights are live, only the residual writers are zero', () => {
    const params = initParams(llama, 6, 0.3);
    const grown = growDepth({ config: llama, params, tokenizer: null, generationConfig: null }, llama.numLayers + 1);
    const last = llama.numLayers;
    const q = grown.params.get(`model.layers.${last}.self_attn.q_proj.weight`)!;
    expect(q).toEqual(params.get(`model.layers.${last - 1}.self_attn.q_proj.weight`));
    expect(q).not.toBe(params.get(`model.layers.${last - 1}.self_attn.q_proj.weight`));
    expect(grown.params.get(`model.layers.${last}.self_attn.o_proj.weight`)!.every((x) => x === 0)).toBe(true);
    expect(grown.params.get(`model.layers.${last}.mlp.down_proj.weight`)!.every((x) => x === 0)).toBe(true);
    expect(grown.params.get(`model.layers.${last - 1}.mlp.down_proj.weight`)!.some((x) => x !== 0)).toBe(true);
  });

  it('refuses a depth that does not grow the model, naming the layer counts', () => {
    const params = initParams(llama, 7, 0.3);
    const grow = (layers: number) => () =>
      growDepth({ config: llama, params, tokenizer: null, generationConfig: null }, layers);
    expect(grow(llama.numLayers)).toThrow(ModelError);
    expect(grow(llama.numLayers)).toThrow(
      `more layers than the checkpoint's ${llama.numLayers}, got ${llama.numLayers}`,
    );
    expect(grow(llama.numLayers + 0.5)).toThrow(ModelError);
  });
});
