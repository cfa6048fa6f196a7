import type { ModelConfig } from './config';
import { ModelError } from './errors';
import { Rng } from '@fathom/contracts';
import { WORD_TAGS, wordFeatureCount } from './word-features';

/** A model's weights by Hugging Face tensor name, row-major float32 (Linear weights are (out, in)). */
export type ParamMap = Map<string, Float32Array>;

export interface ParamSpec {
  name: string;
  shape: number[];
  /** How `initParams` fills it: normal(0, std) for matrices, ones for norm gains, zeros for biases. */
  init: 'normal' | 'ones' | 'zeros';
  /** Never trained: a graph takes it as an input it does not differentiate (a reader's pretrained word vectors). */
  frozen?: boolean;
}

/** The projections a LoRA adapter may target, by their Hugging Face module names. */
export const LINEAR_MODULES = ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const;
export type LinearModule = (typeof LINEAR_MODULES)[number];

/** The Hugging Face name prefix of a layer's projection module, e.g. `model.layers.3.self_attn.q_proj`. */
export function linearPrefix(layer: number, module: LinearModule): string {
  const group = module === 'gate_proj' || module === 'up_proj' || module === 'down_proj' ? 'mlp' : 'self_attn';
  return `model.layers.${layer}.${group}.${module}`;
}

/** (out, in) of a projection. */
export function linearShape(config: ModelConfig, module: LinearModule): [number, number] {
  const { hiddenSize: d, headDim, numHeads, numKvHeads, intermediateSize: f } = config;
  switch (module) {
    case 'q_proj':
      return [numHeads * headDim, d];
    case 'k_proj':
    case 'v_proj':
      return [numKvHeads * headDim, d];
    case 'o_proj':
      return [d, numHeads * headDim];
    case 'gate_proj':
    case 'up_proj':
      return [f, d];
    case 'down_proj':
      return [d, f];
  }
}

/** Every parameter of the model in checkpoint order, with Hugging Face names and shapes. */
export function paramSpecs(config: ModelConfig): ParamSpec[] {
  const specs: ParamSpec[] = [
    { name: 'model.embed_tokens.weight', shape: [config.vocabSize, config.hiddenSize], init: 'normal' },
  ];
  for (let l = 0; l < config.numLayers; l++) {
    specs.push({ name: `model.layers.${l}.input_layernorm.weight`, shape: [config.hiddenSize], init: 'ones' });
    for (const module of LINEAR_MODULES) {
      const prefix = linearPrefix(l, module);
      specs.push({ name: `${prefix}.weight`, shape: linearShape(config, module), init: 'normal' });
      if (config.qkvBias && (module === 'q_proj' || module === 'k_proj' || module === 'v_proj')) {
        specs.push({ name: `${prefix}.bias`, shape: [linearShape(config, module)[0]], init: 'zeros' });
      }
      if (module === 'o_proj') {
        specs.push({
          name: `model.layers.${l}.post_attention_layernorm.weight`,
          shape: [config.hiddenSize],
          init: 'ones',
        });
      }
    }
  }
  specs.push({ name: 'model.norm.weight', shape: [config.hiddenSize], init: 'ones' });
  if (!config.tieWordEmbeddings) {
    specs.push({ name: 'lm_head.weight', shape: [config.vocabSize, config.hiddenSize], init: 'normal' });
  }
  return [...specs, ...readerSpecs(config)];
}

/** The reading heads' tensors (`ReaderHeads`): none for a plain decoder. */
export function readerSpecs(config: ModelConfig): ParamSpec[] {
  const specs: ParamSpec[] = [];
  if (config.reader?.exactMatch) specs.push({ name: MATCH_EMBEDDING, shape: [config.hiddenSize], init: 'normal' });
  if (config.reader?.wordFeatures)
    specs.push({
      name: WORD_FEATURE_EMBEDDING,
      shape: [wordFeatureCount(config.reader.sentenceRecency), config.hiddenSize],
      init: 'normal',
    });
  if (config.reader?.wordTags)
    specs.push({ name: WORD_TAG_EMBEDDING, shape: [WORD_TAGS.length, config.hiddenSize], init: 'normal' });
  if (config.reader?.spanHead) specs.push({ name: SPAN_HEAD, shape: [2, config.hiddenSize], init: 'normal' });
  const vectors = config.reader?.wordVectors;
  if (vectors) {
    specs.push({ name: WORD_VECTORS, shape: [vectors.rows, vectors.dims], init: 'zeros', frozen: true });
    specs.push({ name: WORD_VECTOR_PROJ, shape: [config.hiddenSize, vectors.dims], init: 'normal' });
  }
  return specs;
}

/** The exact-match vector added to every position whose word occurs in the question, (hidden). */
export const MATCH_EMBEDDING = 'reader.match_embedding';
/** One vector per word-feature id (`wordFeature`), added by each position's word-feature input, (ids, hidden). */
export const WORD_FEATURE_EMBEDDING = 'reader.word_feature_embedding';
/** One vector per part-of-speech tag (`WORD_TAGS`), added by each position's word-tag input, (tags, hidden). */
export const WORD_TAG_EMBEDDING = 'reader.word_tag_embedding';
/** A reader's frozen pretrained word vectors, (rows, dims), row 0 zeros (`WordVectors`). */
export const WORD_VECTORS = 'reader.word_vectors';
/** The learned map of a word vector into the model, (hidden, dims) as a Linear weight. */
export const WORD_VECTOR_PROJ = 'reader.word_vector_proj';
/** Start (row 0) and end (row 1) logit vectors of the span head, (2, hidden). */
export const SPAN_HEAD = 'reader.span_head.weight';

export const numel = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);

/** Total parameter count of a config. */
export function countParams(config: ModelConfig): number {
  return paramSpecs(config).reduce((n, s) => n + numel(s.shape), 0);
}

/**
 * Fresh weights: normal(0, std) matrices (std 0.02 as Hugging Face initialises Llama/Qwen2, scaled down by
 * sqrt(2·layers) for the residual output projections as GPT-2 does, so deep stacks start near identity),
 * unit norm gains, zero biases. Deterministic in `seed`.
 */
export function initParams(config: ModelConfig, seed: number, std = 0.02): ParamMap {
  const rng = new Rng(seed);
  const params: ParamMap = new Map();
  const residualStd = std / Math.sqrt(2 * config.numLayers);
  for (const spec of paramSpecs(config)) {
    const data = new Float32Array(numel(spec.shape));
    if (spec.init === 'ones') data.fill(1);
    if (spec.init === 'normal') {
      const s = spec.name.endsWith('o_proj.weight') || spec.name.endsWith('down_proj.weight') ? residualStd : std;
      for (let i = 0; i < data.length; i++) data[i] = rng.normal() * s;
    }
    params.set(spec.name, data);
  }
  return params;
}

/**
 * Checks that `params` holds exactly the config's tensors with the right element counts; throws naming the
 * first missing, unexpected or mis-shaped tensor.
 */
export function checkParams(config: ModelConfig, params: ParamMap, shapes?: Map<string, number[]>): void {
  const specs = paramSpecs(config);
  for (const spec of specs) {
    const data = params.get(spec.name);
    if (!data) throw new ModelError('INVALID_TENSOR', `'${spec.name}' is missing`);
    const shape = shapes?.get(spec.name);
    if (shape && (shape.length !== spec.shape.length || shape.some((n, i) => n !== spec.shape[i]))) {
      throw new ModelError(
        'INVALID_TENSOR',
        `'${spec.name}' has shape [${shape.join(', ')}], the config needs [${spec.shape.join(', ')}]`,
      );
    }
    if (data.length !== numel(spec.shape)) {
      throw new ModelError(
        'INVALID_TENSOR',
        `'${spec.name}' has ${data.length} elements, the config needs [${spec.shape.join(', ')}]`,
      );
    }
  }
  const known = new Set(specs.map((s) => s.name));
  for (const name of params.keys()) {
    if (!known.has(name)) throw new ModelError('INVALID_TENSOR', `'${name}' is not a tensor of this model`);
  }
}
