import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCheckpoint, saveCheckpoint } from './checkpoint';
import { ModelGraphs } from './graph/model.graphs';
import { initLora, loadAdapter, mergeLora, saveAdapter, type LoraConfig } from './lora';
import { initParams } from './params';
import { referenceForward } from './reference';
import { parseSafetensors, serializeSafetensors } from './safetensors';
import { smallConfigs } from './testing/configs';
import { ByteTokenizer } from './tokenizer/byte.tokenizer';
import { HfTokenizer } from './tokenizer/hf.tokenizer';

const dirs: string[] = [];
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'fathom-model-'));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const [[, llama], [, qwen]] = smallConfigs();
const ids = [1, 4, 9, 2, 30, 7];

describe('checkpoints', () => {
  it('save → load gives identical tensors, tokenizer and logits', async () => {
    const dir = await tempDir();
    const config = { ...qwen, vocabSize: 257 };
    const params = initParams(config, 21, 0.3);
    const tokenizer = new ByteTokenizer(['<|a|>']);
    await saveCheckpoint(dir, { config, params, tokenizer, generationConfig: { temperature: 0.7 } });
    const loaded = await loadCheckpoint(dir);
    expect(loaded.config).toEqual(config);
    expect(loaded.tokenizer).toBeInstanceOf(ByteTokenizer);
    expect(loaded.tokenizer?.encode('x<|a|>')).toEqual([120, 256]);
    expect(loaded.generationConfig).toEqual({ temperature: 0.7 });
    const graphs = new ModelGraphs(config);
    expect(await graphs.logits(loaded.params, ids, 1, 6)).toEqual(await graphs.logits(params, ids, 1, 6));
  });

  it('loads BF16 tensors as their bfloat16 values', async () => {
    const dir = await tempDir();
    const params = initParams(llama, 2, 0.3);
    await saveCheckpoint(dir, { config: llama, params, tokenizer: null, generationConfig: null }, 'BF16');
    const raw = parseSafetensors(await readFile(join(dir, 'model.safetensors')));
    expect(raw.tensors.get('lm_head.weight')?.dtype).toBe('BF16');
    expect(JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')).torch_dtype).toBe('bfloat16');
    const loaded = await loadCheckpoint(dir);
    const w = params.get('model.layers.0.mlp.up_proj.weight')!;
    const got = loaded.params.get('model.layers.0.mlp.up_proj.weight')!;
    expect(got).not.toEqual(w);
    for (let i = 0; i < w.length; i++) expect(Math.abs(got[i] - w[i])).toBeLessThanOrEqual(Math.abs(w[i]) / 256);
    const a = referenceForward(llama, loaded.params, ids);
    const b = referenceForward(llama, params, ids);
    expect(Math.abs(a[5][3] - b[5][3])).toBeLessThan(0.05);
  });

  it('names a tensor of the wrong shape, a missing one, and a bad config field', async () => {
    const dir = await tempDir();
    const params = initParams(llama, 2, 0.3);
    await saveCheckpoint(dir, { config: llama, params, tokenizer: null, generationConfig: null });
    const file = parseSafetensors(await readFile(join(dir, 'model.safetensors')));
    const tensors = [...file.tensors].map(([name, t]) => ({ name, shape: t.shape, data: t.data }));
    const bad = tensors.map((t) =>
      t.name === 'model.layers.1.self_attn.k_proj.weight' ? { ...t, shape: [t.shape[1], t.shape[0]] } : t,
    );
    await writeFile(join(dir, 'model.safetensors'), serializeSafetensors(bad));
    await expect(loadCheckpoint(dir)).rejects.toThrow(
      /'model\.layers\.1\.self_attn\.k_proj\.weight' has shape \[24, 12\]/,
    );

    await writeFile(
      join(dir, 'model.safetensors'),
      serializeSafetensors(tensors.filter((t) => t.name !== 'model.norm.weight')),
    );
    await expect(loadCheckpoint(dir)).rejects.toThrow(/'model\.norm\.weight' is missing/);

    const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
    await writeFile(join(dir, 'config.json'), JSON.stringify({ ...config, num_attention_heads: 5 }));
    await expect(loadCheckpoint(dir)).rejects.toThrow(/'num_key_value_heads'|'head_dim'/);
    await writeFile(join(dir, 'config.json'), JSON.stringify({ ...config, architectures: ['GPT2LMHeadModel'] }));
    await expect(loadCheckpoint(dir)).rejects.toThrow(/unknown architecture.*GPT2LMHeadModel/);
  });

  it('loads weights sharded as model.safetensors.index.json lists them', async () => {
    const dir = await tempDir();
    const params = initParams(llama, 6, 0.3);
    await saveCheckpoint(dir, { config: llama, params, tokenizer: null, generationConfig: null });
    const { tensors } = parseSafetensors(await readFile(join(dir, 'model.safetensors')));
    await rm(join(dir, 'model.safetensors'));
    const entries = [...tensors].map(([name, t]) => ({ name, shape: t.shape, data: t.data }));
    const half = Math.floor(entries.length / 2);
    const shards = [entries.slice(0, half), entries.slice(half)];
    const weightMap: Record<string, string> = {};
    for (const [i, shard] of shards.entries()) {
      const file = `model-0000${i + 1}-of-00002.safetensors`;
      await writeFile(join(dir, file), serializeSafetensors(shard, 'BF16'));
      for (const t of shard) weightMap[t.name] = file;
    }
    await writeFile(join(dir, 'model.safetensors.index.json'), JSON.stringify({ metadata: {}, weight_map: weightMap }));
    const loaded = await loadCheckpoint(dir);
    expect(loaded.params.size).toBe(params.size);
    const w = loaded.params.get('lm_head.weight')!;
    expect(Math.abs(w[3] - params.get('lm_head.weight')![3])).toBeLessThan(0.01);
  });

  it('loads a Hugging Face BPE tokenizer.json from a checkpoint folder', async () => {
    const dir = await tempDir();
    const fixture = (name: string) => readFile(new URL(`./tokenizer/fixtures/${name}`, import.meta.url), 'utf8');
    const config = { ...llama, vocabSize: 265 };
    await saveCheckpoint(dir, { config, params: initParams(config, 1), tokenizer: null, generationConfig: null });
    await writeFile(join(dir, 'tokenizer.json'), await fixture('qwen2-style.tokenizer.json'));
    await writeFile(join(dir, 'tokenizer_config.json'), await fixture('qwen2-style.tokenizer_config.json'));
    const loaded = await loadCheckpoint(dir);
    expect(loaded.tokenizer).toBeInstanceOf(HfTokenizer);
    expect(loaded.tokenizer?.encode('<|im_start|>hello<|im_end|>')).toEqual([263, 261, 264]);
  });
});

describe('LoRA adapters on disk', () => {
  const lora: LoraConfig = { rank: 3, alpha: 6, targetModules: ['q_proj', 'o_proj', 'up_proj'] };

  it('saves in PEFT layout and loads back the same adapters', async () => {
    const dir = await tempDir();
    const adapters = initLora(llama, lora, 4);
    await saveAdapter(dir, llama, lora, adapters, 'fathom/base');
    const peft = JSON.parse(await readFile(join(dir, 'adapter_config.json'), 'utf8'));
    expect(peft).toMatchObject({
      peft_type: 'LORA',
      r: 3,
      lora_alpha: 6,
      target_modules: ['q_proj', 'o_proj', 'up_proj'],
    });
    const names = [...parseSafetensors(await readFile(join(dir, 'adapter_model.safetensors'))).tensors.keys()];
    expect(names).toContain('base_model.model.model.layers.1.self_attn.q_proj.lora_A.weight');
    expect(names).toContain('base_model.model.model.layers.0.mlp.up_proj.lora_B.weight');
    const loaded = await loadAdapter(dir, llama);
    expect(loaded.lora).toEqual(lora);
    expect(loaded.adapters).toEqual(adapters);
    await expect(loadAdapter(dir, qwen)).rejects.toThrow(/lora_A.weight' has \d+ elements/);
  });

  it('merges as W + (alpha/rank)·B·A and leaves the base untouched', () => {
    const base = initParams(llama, 1);
    const adapters = initLora(llama, lora, 2);
    const name = 'model.layers.0.self_attn.q_proj';
    const b = adapters.get(`${name}.lora_B.weight`)!;
    b.fill(0.1);
    const merged = mergeLora(llama, base, lora, adapters);
    const a = adapters.get(`${name}.lora_A.weight`)!;
    const inp = llama.hiddenSize;
    const expected = base.get(`${name}.weight`)![5 * inp + 7] + 2 * (0.1 * (a[7] + a[inp + 7] + a[2 * inp + 7]));
    expect(merged.get(`${name}.weight`)![5 * inp + 7]).toBeCloseTo(expected, 6);
    expect(merged.get('model.layers.0.self_attn.k_proj.weight')).toBe(
      base.get('model.layers.0.self_attn.k_proj.weight'),
    );
    expect(merged.get(`${name}.weight`)).not.toBe(base.get(`${name}.weight`));
  });
});
