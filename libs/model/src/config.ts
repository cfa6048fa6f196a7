import { z } from 'zod';
import { ModelError } from './errors';

/** The decoder families this library implements; both are RMSNorm + RoPE + GQA + SwiGLU decoders. */
export const ARCHITECTURES = ['LlamaForCausalLM', 'Qwen2ForCausalLM'] as const;
export type Architecture = (typeof ARCHITECTURES)[number];

const modelTypeOf: Record<Architecture, string> = { LlamaForCausalLM: 'llama', Qwen2ForCausalLM: 'qwen2' };

/** Llama 3.1-style frequency-dependent RoPE scaling (`rope_scaling.rope_type == "llama3"`). */
export interface Llama3RopeScaling {
  factor: number;
  lowFreqFactor: number;
  highFreqFactor: number;
  originalMaxPositions: number;
}

/**
 * The reading heads of an extractive reader (config.json key `fathom_reader`), after the extractive QA readers that
 * predate pretraining (DrQA, Chen et al. 2017; BiDAF's span output): an exact-match input (a learned vector added to
 * each chunk token whose word also occurs in the question) and a span head (start and end logits over the chunk's
 * positions, the no-answer option at the prompt's last position). The LM head is untouched: root turns use it.
 */
export interface ReaderHeads {
  /** `reader.match_embedding` (hidden) is added to every position whose `match` input is 1. */
  exactMatch: boolean;
  /**
   * `reader.word_feature_embedding` (`wordFeatureCount`, hidden): the row of each position's word-feature input
   * (`wordFeature`: its word's shape and how much of the question its sentence holds) is added to it.
   */
  wordFeatures: boolean;
  /** The word-feature input also says how late its sentence comes among those about the question (`SentenceRecency`). */
  sentenceRecency: boolean;
  /**
   * `reader.word_tag_embedding` (`WORD_TAGS`, hidden): the row of each chunk word's part-of-speech tag (`wordTag`, from
   * a tagger) is added to its tokens.
   */
  wordTags: boolean;
  /** `reader.span_head.weight` (2, hidden): start and end logits of every position. */
  spanHead: boolean;
  /** The longest span, in tokens, a read may answer with. */
  maxSpanTokens: number;
  /** Pretrained word vectors added to the chunk's tokens through a learned projection (`WordVectors`); absent: none. */
  wordVectors?: WordVectors;
}

/**
 * A reader's frozen pretrained word vectors, after the fixed GloVe embeddings of the extractive readers that predate
 * contextual pretraining (DrQA, Chen et al. 2017; BiDAF): `reader.word_vectors` (rows, dims), row 0 all zeros for a
 * word without a vector, is never trained; `reader.word_vector_proj` (hidden, dims) maps each chunk token's row into
 * the model. A word never seen in training still lands near the words of similar use ("nobody" near "never"), where a
 * hashed token is only a random bucket. config.json holds `rows` and `dims`; `index` (case-folded word → row) is the
 * checkpoint's word_vectors.txt, one word per line from row 1, attached when the checkpoint is loaded.
 */
export interface WordVectors {
  rows: number;
  dims: number;
  index?: ReadonlyMap<string, number>;
}

/** The architecture of one decoder, in this library's names; `parseHfConfig` builds it from a config.json. */
export interface ModelConfig {
  architecture: Architecture;
  vocabSize: number;
  hiddenSize: number;
  intermediateSize: number;
  numLayers: number;
  numHeads: number;
  /** Key/value heads; `numHeads` is a multiple of it (grouped-query attention). */
  numKvHeads: number;
  /** Per-head width; may differ from hiddenSize / numHeads. */
  headDim: number;
  rmsNormEps: number;
  ropeTheta: number;
  ropeScaling: Llama3RopeScaling | null;
  maxPositions: number;
  /** lm_head shares model.embed_tokens.weight (no lm_head.weight tensor). */
  tieWordEmbeddings: boolean;
  /** q/k/v projections carry biases (always for Qwen2, `attention_bias` for Llama; o_proj never). */
  qkvBias: boolean;
  bosTokenId: number | null;
  eosTokenIds: number[];
  /** The extractive reading heads; absent for a plain decoder (every Hugging Face checkpoint). */
  reader?: ReaderHeads;
}

const positiveInt = z.number().int().positive();
const tokenId = z.number().int().nonnegative();

const hfConfigSchema = z.looseObject({
  architectures: z.array(z.string()).min(1),
  vocab_size: positiveInt,
  hidden_size: positiveInt,
  intermediate_size: positiveInt,
  num_hidden_layers: positiveInt,
  num_attention_heads: positiveInt,
  num_key_value_heads: positiveInt.optional(),
  head_dim: positiveInt.nullish(),
  rms_norm_eps: z.number().positive(),
  rope_theta: z.number().positive().default(10000),
  rope_scaling: z
    .looseObject({
      rope_type: z.string().optional(),
      type: z.string().optional(),
      factor: z.number().positive().optional(),
      low_freq_factor: z.number().positive().optional(),
      high_freq_factor: z.number().positive().optional(),
      original_max_position_embeddings: positiveInt.optional(),
    })
    .nullish(),
  max_position_embeddings: positiveInt,
  tie_word_embeddings: z.boolean().default(false),
  hidden_act: z.literal('silu').default('silu'),
  attention_bias: z.boolean().default(false),
  mlp_bias: z.literal(false).default(false),
  use_sliding_window: z.literal(false).default(false),
  bos_token_id: tokenId.nullish(),
  eos_token_id: z.union([tokenId, z.array(tokenId)]).nullish(),
  fathom_reader: z
    .strictObject({
      exact_match: z.boolean().default(true),
      word_features: z.boolean().default(false),
      sentence_recency: z.boolean().default(false),
      word_tags: z.boolean().default(false),
      span_head: z.boolean().default(true),
      max_span_tokens: positiveInt.max(512).default(48),
      word_vectors: z.strictObject({ rows: z.number().int().min(2), dims: positiveInt.max(1024) }).nullish(),
    })
    .nullish(),
});

function fail(field: string, why: string): never {
  throw new ModelError('INVALID_CONFIG', `config.json field '${field}': ${why}`);
}

/**
 * Validates a Hugging Face config.json object of a LlamaForCausalLM or Qwen2ForCausalLM checkpoint.
 * Unrelated fields are ignored (real configs carry many); a missing, mistyped or inconsistent field throws a
 * `ModelError` naming it, an unsupported family throws `UnknownArchitecture`.
 */
export function parseHfConfig(json: unknown): ModelConfig {
  const parsed = hfConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    fail(issue.path.join('.') || '(root)', issue.message);
  }
  const c = parsed.data;
  const architecture = c.architectures[0];
  if (!(ARCHITECTURES as readonly string[]).includes(architecture)) {
    throw new ModelError(
      'UNKNOWN_ARCHITECTURE',
      `config.json field 'architectures' is '${architecture}'; supported: ${ARCHITECTURES.join(', ')}`,
    );
  }
  const arch = architecture as Architecture;
  const numKvHeads = c.num_key_value_heads ?? c.num_attention_heads;
  if (c.num_attention_heads % numKvHeads !== 0) {
    fail('num_key_value_heads', `${numKvHeads} does not divide num_attention_heads ${c.num_attention_heads}`);
  }
  if (c.head_dim == null && c.hidden_size % c.num_attention_heads !== 0) {
    fail('head_dim', `absent, and hidden_size ${c.hidden_size} is not a multiple of num_attention_heads`);
  }
  const headDim = c.head_dim ?? c.hidden_size / c.num_attention_heads;
  if (headDim % 2 !== 0) fail('head_dim', `${headDim} is odd; rotary embeddings rotate pairs`);
  return {
    architecture: arch,
    vocabSize: c.vocab_size,
    hiddenSize: c.hidden_size,
    intermediateSize: c.intermediate_size,
    numLayers: c.num_hidden_layers,
    numHeads: c.num_attention_heads,
    numKvHeads,
    headDim,
    rmsNormEps: c.rms_norm_eps,
    ropeTheta: c.rope_theta,
    ropeScaling: parseRopeScaling(c.rope_scaling ?? null),
    maxPositions: c.max_position_embeddings,
    tieWordEmbeddings: c.tie_word_embeddings,
    qkvBias: arch === 'Qwen2ForCausalLM' ? true : c.attention_bias,
    bosTokenId: c.bos_token_id ?? null,
    eosTokenIds: c.eos_token_id == null ? [] : Array.isArray(c.eos_token_id) ? c.eos_token_id : [c.eos_token_id],
    ...(c.fathom_reader != null && {
      reader: {
        exactMatch: c.fathom_reader.exact_match,
        wordFeatures: c.fathom_reader.word_features,
        sentenceRecency: c.fathom_reader.sentence_recency,
        wordTags: c.fathom_reader.word_tags,
        spanHead: c.fathom_reader.span_head,
        maxSpanTokens: c.fathom_reader.max_span_tokens,
        ...(c.fathom_reader.word_vectors != null && { wordVectors: { ...c.fathom_reader.word_vectors } }),
      },
    }),
  };
}

function parseRopeScaling(
  raw: { rope_type?: string; type?: string; [k: string]: unknown } | null,
): Llama3RopeScaling | null {
  if (raw === null) return null;
  const kind = raw.rope_type ?? raw.type;
  if (kind === 'default') return null;
  if (kind !== 'llama3') fail('rope_scaling.rope_type', `'${kind}' is not supported (only 'llama3' or none)`);
  const need = (key: string): number => {
    const v = raw[key];
    if (typeof v !== 'number') fail(`rope_scaling.${key}`, 'missing');
    return v;
  };
  return {
    factor: need('factor'),
    lowFreqFactor: need('low_freq_factor'),
    highFreqFactor: need('high_freq_factor'),
    originalMaxPositions: need('original_max_position_embeddings'),
  };
}

/** The config.json object of a model, in Hugging Face field names, so `transformers` can load our checkpoints. */
export function toHfConfig(config: ModelConfig): Record<string, unknown> {
  const s = config.ropeScaling;
  return {
    architectures: [config.architecture],
    model_type: modelTypeOf[config.architecture],
    vocab_size: config.vocabSize,
    hidden_size: config.hiddenSize,
    intermediate_size: config.intermediateSize,
    num_hidden_layers: config.numLayers,
    num_attention_heads: config.numHeads,
    num_key_value_heads: config.numKvHeads,
    head_dim: config.headDim,
    hidden_act: 'silu',
    rms_norm_eps: config.rmsNormEps,
    rope_theta: config.ropeTheta,
    rope_scaling: s && {
      rope_type: 'llama3',
      factor: s.factor,
      low_freq_factor: s.lowFreqFactor,
      high_freq_factor: s.highFreqFactor,
      original_max_position_embeddings: s.originalMaxPositions,
    },
    max_position_embeddings: config.maxPositions,
    tie_word_embeddings: config.tieWordEmbeddings,
    ...(config.architecture === 'LlamaForCausalLM' ? { attention_bias: config.qkvBias, mlp_bias: false } : {}),
    bos_token_id: config.bosTokenId,
    eos_token_id: config.eosTokenIds.length === 1 ? config.eosTokenIds[0] : config.eosTokenIds,
    torch_dtype: 'float32',
    ...(config.reader && {
      fathom_reader: {
        exact_match: config.reader.exactMatch,
        word_features: config.reader.wordFeatures,
        sentence_recency: config.reader.sentenceRecency,
        word_tags: config.reader.wordTags,
        span_head: config.reader.spanHead,
        max_span_tokens: config.reader.maxSpanTokens,
        ...(config.reader.wordVectors && {
          word_vectors: { rows: config.reader.wordVectors.rows, dims: config.reader.wordVectors.dims },
        }),
      },
    }),
  };
}

/**
 * Rotary inverse frequencies, one per rotated pair: theta^(-2i/headDim), with Llama 3.1 scaling applied when
 * configured (long wavelengths divided by `factor`, short ones kept, a smooth blend between).
 */
export function ropeInverseFrequencies(config: ModelConfig): Float64Array {
  const half = config.headDim / 2;
  const inv = new Float64Array(half);
  for (let i = 0; i < half; i++) inv[i] = 1 / Math.pow(config.ropeTheta, (2 * i) / config.headDim);
  const s = config.ropeScaling;
  if (s === null) return inv;
  const lowWavelen = s.originalMaxPositions / s.lowFreqFactor;
  const highWavelen = s.originalMaxPositions / s.highFreqFactor;
  for (let i = 0; i < half; i++) {
    const wavelen = (2 * Math.PI) / inv[i];
    if (wavelen > lowWavelen) inv[i] = inv[i] / s.factor;
    else if (wavelen >= highWavelen) {
      const smooth = (s.originalMaxPositions / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
      inv[i] = (1 - smooth) * (inv[i] / s.factor) + smooth * inv[i];
    }
  }
  return inv;
}
