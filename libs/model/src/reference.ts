import type { DecodeBackend, DecodePrompt, DecodeSession } from './decode';
import { ropeInverseFrequencies, type ModelConfig } from './config';
import { ModelError } from './errors';
import {
  MATCH_EMBEDDING,
  SPAN_HEAD,
  WORD_FEATURE_EMBEDDING,
  WORD_TAG_EMBEDDING,
  WORD_VECTOR_PROJ,
  WORD_VECTORS,
  type ParamMap,
} from './params';

/**
 * The decoder written as plainly as possible, in float64, one sequence at a time: the oracle the ONNX graphs
 * are tested against. Far too slow for anything else. Returns logits per position, each (vocab).
 */
export function referenceForward(config: ModelConfig, params: ParamMap, tokens: readonly number[]): Float64Array[] {
  const head = config.tieWordEmbeddings ? params.get('model.embed_tokens.weight')! : params.get('lm_head.weight')!;
  return referenceHidden(config, params, tokens).map((h) => referenceLinear(h, head, config.vocabSize));
}

/**
 * A reader's per-token inputs beyond the exact match, each read only by a model that takes it: `feature` (a
 * `wordFeature` id per token), `tag` (a `WORD_TAGS` index per token), `vector` (a row of `reader.word_vectors` per
 * token); an absent one is all 0.
 */
export interface ReferenceReadInputs {
  feature?: readonly number[];
  tag?: readonly number[];
  vector?: readonly number[];
}

/**
 * Start and end logits of every position under the span head, with the exact-match input `match` (0/1 per token)
 * and the reader's other inputs: the oracle of the span graphs. Returns [start, end] per position.
 */
export function referenceSpanLogits(
  config: ModelConfig,
  params: ParamMap,
  tokens: readonly number[],
  match: readonly number[],
  inputs: ReferenceReadInputs = {},
): [number, number][] {
  const head = params.get(SPAN_HEAD);
  if (!head) throw new ModelError('INVALID_TENSOR', `'${SPAN_HEAD}' is missing`);
  return referenceHidden(config, params, tokens, match, inputs).map((h) => {
    const y = referenceLinear(h, head, 2);
    return [y[0], y[1]];
  });
}

// y (out) = W (out, in) · x (in) + b
function referenceLinear(x: Float64Array, weight: Float32Array, out: number, bias?: Float32Array): Float64Array {
  const n = x.length;
  const y = new Float64Array(out);
  for (let o = 0; o < out; o++) {
    let s = bias ? bias[o] : 0;
    for (let i = 0; i < n; i++) s += weight[o * n + i] * x[i];
    y[o] = s;
  }
  return y;
}

/**
 * The final-normed hidden state of every position; `match` adds the exact-match vector where it is 1, `feature` the
 * word-feature vector of its id (for a model with word features), `tag` its tag's vector (for a model with word tags),
 * `vector` its word vector's projection (for a model with word vectors).
 */
function referenceHidden(
  config: ModelConfig,
  params: ParamMap,
  tokens: readonly number[],
  match?: readonly number[],
  { feature, tag, vector }: ReferenceReadInputs = {},
): Float64Array[] {
  const { hiddenSize: d, numHeads, numKvHeads, headDim, numLayers, vocabSize } = config;
  const w = (name: string): Float32Array => {
    const t = params.get(name);
    if (!t) throw new ModelError('INVALID_TENSOR', `'${name}' is missing`);
    return t;
  };
  const linear = referenceLinear;
  const rmsNorm = (x: Float64Array, gain: Float32Array): Float64Array => {
    let ss = 0;
    for (const v of x) ss += v * v;
    const r = 1 / Math.sqrt(ss / x.length + config.rmsNormEps);
    return x.map((v, i) => v * r * gain[i]);
  };
  const invFreq = ropeInverseFrequencies(config);
  const rope = (v: Float64Array, heads: number, pos: number): void => {
    const half = headDim / 2;
    for (let h = 0; h < heads; h++) {
      for (let i = 0; i < half; i++) {
        const a = v[h * headDim + i];
        const b = v[h * headDim + i + half];
        const c = Math.cos(pos * invFreq[i]);
        const s = Math.sin(pos * invFreq[i]);
        v[h * headDim + i] = a * c - b * s;
        v[h * headDim + i + half] = b * c + a * s;
      }
    }
  };

  const embed = w('model.embed_tokens.weight');
  let xs = tokens.map((t, i) => {
    if (!Number.isInteger(t) || t < 0 || t >= vocabSize) throw new ModelError('INVALID_ARGUMENT', `token ${t}`);
    const x = Float64Array.from(embed.subarray(t * d, (t + 1) * d));
    const addRow = (table: string, id: number) =>
      w(table)
        .subarray(id * d, (id + 1) * d)
        .forEach((v, k) => (x[k] += v));
    if (match?.[i]) w(MATCH_EMBEDDING).forEach((v, k) => (x[k] += v));
    if (config.reader?.wordFeatures) addRow(WORD_FEATURE_EMBEDDING, feature?.[i] ?? 0);
    if (config.reader?.wordTags) addRow(WORD_TAG_EMBEDDING, tag?.[i] ?? 0);
    const dims = config.reader?.wordVectors?.dims;
    if (dims !== undefined) {
      const id = vector?.[i] ?? 0;
      const projected = referenceLinear(
        Float64Array.from(w(WORD_VECTORS).subarray(id * dims, (id + 1) * dims)),
        w(WORD_VECTOR_PROJ),
        d,
      );
      projected.forEach((v, k) => (x[k] += v));
    }
    return x;
  });
  const group = numHeads / numKvHeads;
  for (let l = 0; l < numLayers; l++) {
    const p = `model.layers.${l}`;
    const bias = (m: string) => (config.qkvBias ? w(`${p}.self_attn.${m}.bias`) : undefined);
    const qs: Float64Array[] = [];
    const ks: Float64Array[] = [];
    const vs: Float64Array[] = [];
    xs.forEach((x, t) => {
      const h = rmsNorm(x, w(`${p}.input_layernorm.weight`));
      const q = linear(h, w(`${p}.self_attn.q_proj.weight`), numHeads * headDim, bias('q_proj'));
      const k = linear(h, w(`${p}.self_attn.k_proj.weight`), numKvHeads * headDim, bias('k_proj'));
      rope(q, numHeads, t);
      rope(k, numKvHeads, t);
      qs.push(q);
      ks.push(k);
      vs.push(linear(h, w(`${p}.self_attn.v_proj.weight`), numKvHeads * headDim, bias('v_proj')));
    });
    xs = xs.map((x, t) => {
      const attn = new Float64Array(numHeads * headDim);
      for (let h = 0; h < numHeads; h++) {
        const kv = Math.floor(h / group);
        const scores = new Float64Array(t + 1);
        for (let s = 0; s <= t; s++) {
          let dot = 0;
          for (let i = 0; i < headDim; i++) dot += qs[t][h * headDim + i] * ks[s][kv * headDim + i];
          scores[s] = dot / Math.sqrt(headDim);
        }
        const max = Math.max(...scores);
        const e = scores.map((v) => Math.exp(v - max));
        const z = e.reduce((a, b) => a + b, 0);
        for (let s = 0; s <= t; s++) {
          for (let i = 0; i < headDim; i++) attn[h * headDim + i] += (e[s] / z) * vs[s][kv * headDim + i];
        }
      }
      const o = linear(attn, w(`${p}.self_attn.o_proj.weight`), d);
      const x1 = x.map((v, i) => v + o[i]);
      const h2 = rmsNorm(x1, w(`${p}.post_attention_layernorm.weight`));
      const f = config.intermediateSize;
      const gate = linear(h2, w(`${p}.mlp.gate_proj.weight`), f);
      const up = linear(h2, w(`${p}.mlp.up_proj.weight`), f);
      const act = gate.map((g, i) => (g / (1 + Math.exp(-g))) * up[i]);
      const down = linear(act, w(`${p}.mlp.down_proj.weight`), d);
      return x1.map((v, i) => v + down[i]);
    });
  }
  return xs.map((x) => rmsNorm(x, w('model.norm.weight')));
}

/**
 * The reference forward as a `DecodeBackend`: every step recomputes each row from scratch. For tests of the
 * sampler and of the KV-cache decoder, at tiny sizes only.
 */
export class ReferenceDecodeBackend implements DecodeBackend {
  readonly vocabSize: number;
  readonly maxLength: number;

  constructor(
    private readonly config: ModelConfig,
    private readonly params: ParamMap,
  ) {
    this.vocabSize = config.vocabSize;
    this.maxLength = config.maxPositions;
  }

  async start(prompts: readonly DecodePrompt[]): Promise<{ session: DecodeSession; logits: Float32Array }> {
    let seqs = prompts.flatMap(({ tokens, rows }) => Array.from({ length: rows }, () => [...tokens]));
    const last = (seq: number[]) => {
      const all = referenceForward(this.config, this.params, seq);
      return Float32Array.from(all[all.length - 1]);
    };
    const session: DecodeSession = {
      get rows() {
        return seqs.length;
      },
      step: async (tokens) => {
        const out = new Float32Array(seqs.length * this.vocabSize);
        seqs.forEach((seq, r) => {
          seq.push(tokens[r]);
          out.set(last(seq), r * this.vocabSize);
        });
        return out;
      },
      retain: (rows) => {
        seqs = rows.map((r) => seqs[r]);
      },
      close: () => undefined,
    };
    const logits = new Float32Array(prompts.length * this.vocabSize);
    prompts.forEach(({ tokens }, i) => logits.set(last([...tokens]), i * this.vocabSize));
    return { session, logits };
  }
}
