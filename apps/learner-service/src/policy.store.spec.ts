import { initParams, parseHfConfig, type Checkpoint } from '@fathom/model';
import { TINY_HF_CONFIG } from '@fathom/training/testing';
import { describe, expect, it } from 'vitest';
import { PolicyStore } from './policy.store';

function tinyModel(): Checkpoint {
  const config = parseHfConfig(TINY_HF_CONFIG);
  return { config, params: initParams(config, 1), tokenizer: null, generationConfig: null };
}

describe('PolicyStore', () => {
  it('serves a copy of each published version and evicts versions beyond the kept window', () => {
    const store = new PolicyStore();
    const model = tinyModel();
    store.publish('run-1', 0, 0, model, null, 2);
    const first = model.params.get('model.embed_tokens.weight')![0];
    model.params.get('model.embed_tokens.weight')![0] = first + 1;
    store.publish('run-1', 1, 1, model, '/ckpt/step-1', 2);
    const v0 = store.get('run-1', 0);
    expect(v0).not.toBe('evicted');
    expect((v0 as { tensors: { name: string; data: Float32Array }[] }).tensors[0].data[0]).toBe(first);
    expect(store.latest('run-1')).toMatchObject({ version: 1, step: 1, checkpointPath: '/ckpt/step-1' });
    expect(JSON.parse(store.latest('run-1')!.configJson)).toMatchObject({ hidden_size: 32 });
    store.publish('run-1', 2, 2, model, null, 2);
    expect(store.get('run-1', 0)).toBe('evicted');
    expect(store.get('run-1', 3)).toBeUndefined();
    expect(store.get('run-2', 0)).toBeUndefined();
    store.drop('run-1');
    expect(store.latest('run-1')).toBeUndefined();
  });
});
