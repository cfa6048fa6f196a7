import { parseHfConfig, type ModelConfig } from '../config';

/** Small HF config.json objects covering both families, GQA, tying, and head_dim ≠ hidden/heads (for specs). */
export const SMALL_HF_CONFIGS: Record<string, Record<string, unknown>> = {
  llamaGqaUntied: {
    architectures: ['LlamaForCausalLM'],
    vocab_size: 40,
    hidden_size: 24,
    intermediate_size: 40,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    rms_norm_eps: 1e-5,
    rope_theta: 10000,
    max_position_embeddings: 64,
    tie_word_embeddings: false,
  },
  qwen2TiedWideHeads: {
    architectures: ['Qwen2ForCausalLM'],
    vocab_size: 37,
    hidden_size: 16,
    intermediate_size: 24,
    num_hidden_layers: 2,
    num_attention_heads: 3,
    num_key_value_heads: 1,
    head_dim: 10,
    rms_norm_eps: 1e-6,
    rope_theta: 1000,
    max_position_embeddings: 64,
    tie_word_embeddings: true,
  },
  llamaMhaTiedBiasScaled: {
    architectures: ['LlamaForCausalLM'],
    vocab_size: 30,
    hidden_size: 16,
    intermediate_size: 20,
    num_hidden_layers: 1,
    num_attention_heads: 2,
    head_dim: 6,
    attention_bias: true,
    rms_norm_eps: 1e-5,
    rope_theta: 500000,
    rope_scaling: {
      rope_type: 'llama3',
      factor: 8,
      low_freq_factor: 1,
      high_freq_factor: 4,
      original_max_position_embeddings: 32,
    },
    max_position_embeddings: 64,
    tie_word_embeddings: true,
  },
};

export const smallConfigs = (): [string, ModelConfig][] =>
  Object.entries(SMALL_HF_CONFIGS).map(([name, json]) => [name, parseHfConfig(json)]);
