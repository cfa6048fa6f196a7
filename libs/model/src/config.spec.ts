import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseHfConfig, ropeInverseFrequencies, toHfConfig } from './config';
import { DEFAULT_CONFIG_PATH } from './defaults';
import { ModelError } from './errors';
import { countParams, paramSpecs } from './params';
import { SMALL_HF_CONFIGS } from './testing/configs';

const llama = SMALL_HF_CONFIGS.llamaGqaUntied;

function errorOf(fn: () => unknown): ModelError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
  throw new Error('expected a ModelError');
}

describe('parseHfConfig', () => {
  it('reads the shipped default as a few-million-parameter Qwen2 model with a byte vocab', () => {
    const config = parseHfConfig(JSON.parse(readFileSync(DEFAULT_CONFIG_PATH, 'utf8')));
    expect(config.architecture).toBe('Qwen2ForCausalLM');
    expect(config.qkvBias).toBe(true);
    expect(config.vocabSize).toBe(260);
    expect(countParams(config)).toBeGreaterThan(2e6);
    expect(countParams(config)).toBeLessThan(8e6);
  });

  it('defaults kv heads to the attention heads and head_dim to hidden/heads', () => {
    const { num_key_value_heads: _, ...rest } = llama;
    const config = parseHfConfig(rest);
    expect(config.numKvHeads).toBe(4);
    expect(config.headDim).toBe(6);
    expect(config.qkvBias).toBe(false);
  });

  it('accepts head_dim different from hidden/heads and gives q_proj that width', () => {
    const config = parseHfConfig(SMALL_HF_CONFIGS.qwen2TiedWideHeads);
    expect(config.headDim).toBe(10);
    const q = paramSpecs(config).find((s) => s.name === 'model.layers.0.self_attn.q_proj.weight');
    expect(q?.shape).toEqual([30, 16]);
    expect(paramSpecs(config).some((s) => s.name === 'lm_head.weight')).toBe(false);
    expect(paramSpecs(config).some((s) => s.name === 'model.layers.1.self_attn.k_proj.bias')).toBe(true);
  });

  it('names a missing field', () => {
    const { hidden_size: _, ...rest } = llama;
    const error = errorOf(() => parseHfConfig(rest));
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.message).toContain("'hidden_size'");
  });

  it('names an inconsistent field', () => {
    expect(errorOf(() => parseHfConfig({ ...llama, num_key_value_heads: 3 })).message).toContain(
      "'num_key_value_heads'",
    );
    expect(errorOf(() => parseHfConfig({ ...llama, hidden_size: 25 })).message).toContain("'head_dim'");
    expect(errorOf(() => parseHfConfig({ ...llama, rms_norm_eps: 'x' })).message).toContain("'rms_norm_eps'");
    expect(
      errorOf(() => parseHfConfig({ ...llama, rope_scaling: { rope_type: 'yarn', factor: 2 } })).message,
    ).toContain("'rope_scaling.rope_type'");
  });

  it('rejects an unknown architecture by name', () => {
    const error = errorOf(() => parseHfConfig({ ...llama, architectures: ['MistralForCausalLM'] }));
    expect(error.code).toBe('UNKNOWN_ARCHITECTURE');
    expect(error.message).toContain('MistralForCausalLM');
  });

  it('reads real Qwen2.5-0.5B and Llama-3.2-1B config.json files', () => {
    const qwen25 = parseHfConfig({
      architectures: ['Qwen2ForCausalLM'],
      attention_dropout: 0.0,
      bos_token_id: 151643,
      eos_token_id: 151643,
      hidden_act: 'silu',
      hidden_size: 896,
      initializer_range: 0.02,
      intermediate_size: 4864,
      max_position_embeddings: 32768,
      max_window_layers: 24,
      model_type: 'qwen2',
      num_attention_heads: 14,
      num_hidden_layers: 24,
      num_key_value_heads: 2,
      rms_norm_eps: 1e-6,
      rope_scaling: null,
      rope_theta: 1000000.0,
      sliding_window: 32768,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      transformers_version: '4.43.1',
      use_cache: true,
      use_sliding_window: false,
      vocab_size: 151936,
    });
    expect(qwen25).toMatchObject({
      headDim: 64,
      numKvHeads: 2,
      qkvBias: true,
      tieWordEmbeddings: true,
      eosTokenIds: [151643],
    });
    expect(countParams(qwen25)).toBe(494032768);
    const llama32 = parseHfConfig({
      architectures: ['LlamaForCausalLM'],
      attention_bias: false,
      attention_dropout: 0.0,
      bos_token_id: 128000,
      eos_token_id: [128001, 128008, 128009],
      head_dim: 64,
      hidden_act: 'silu',
      hidden_size: 2048,
      initializer_range: 0.02,
      intermediate_size: 8192,
      max_position_embeddings: 131072,
      mlp_bias: false,
      model_type: 'llama',
      num_attention_heads: 32,
      num_hidden_layers: 16,
      num_key_value_heads: 8,
      pretraining_tp: 1,
      rms_norm_eps: 1e-5,
      rope_scaling: {
        factor: 32.0,
        high_freq_factor: 4.0,
        low_freq_factor: 1.0,
        original_max_position_embeddings: 8192,
        rope_type: 'llama3',
      },
      rope_theta: 500000.0,
      tie_word_embeddings: true,
      torch_dtype: 'bfloat16',
      use_cache: true,
      vocab_size: 128256,
    });
    expect(llama32.ropeScaling).toEqual({
      factor: 32,
      lowFreqFactor: 1,
      highFreqFactor: 4,
      originalMaxPositions: 8192,
    });
    expect(countParams(llama32)).toBe(1235814400);
  });

  it('round-trips through toHfConfig', () => {
    for (const json of Object.values(SMALL_HF_CONFIGS)) {
      const config = parseHfConfig(json);
      expect(parseHfConfig(toHfConfig(config))).toEqual(config);
    }
  });

  it('applies Llama 3.1 rope scaling: long wavelengths divided by factor, short ones kept', () => {
    const scaled = parseHfConfig(SMALL_HF_CONFIGS.llamaMhaTiedBiasScaled);
    const plain = ropeInverseFrequencies({ ...scaled, ropeScaling: null });
    const inv = ropeInverseFrequencies(scaled);
    expect(inv[0]).toBe(plain[0]);
    expect(inv[1]).toBeCloseTo(plain[1] / 8, 12);
  });
});
