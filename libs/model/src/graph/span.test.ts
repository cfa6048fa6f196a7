import { describe, expect, it } from 'vitest';
import { parseHfConfig } from '../config';
import {
  initParams,
  MATCH_EMBEDDING,
  WORD_FEATURE_EMBEDDING,
  WORD_TAG_EMBEDDING,
  WORD_VECTOR_PROJ,
  WORD_VECTORS,
} from '../params';
import { referenceSpanLogits } from '../reference';
import { chooseSpan, spanBiases, SpanReader, type SpanCandidates } from '../span-read';
import { HashedWordTokenizer } from '../tokenizer/hashed-word.tokenizer';
import { SMALL_HF_CONFIGS } from '../testing/configs';
import { ModelGraphs } from './model.graphs';

const config = parseHfConfig({
  ...SMALL_HF_CONFIGS.llamaGqaUntied,
  fathom_reader: { exact_match: true, span_head: true, max_span_tokens: 3 },
});

const length = 7;
const ids = [3, 9, 1, 4, 4, 7, 2, 2, 8, 0, 5, 6, 1, 1];
const match = Float32Array.from([0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0]);
const candidates: SpanCandidates = { starts: [2, 4], ends: [3, 4, 5], none: 6, maxSpanTokens: 3 };

/** −Σ_b w_b (log p(start_b) + log p(end_b | start_b)) under the float64 reference. */
function referenceObjective(params: Map<string, Float32Array>, starts: number[], ends: number[], weights: number[]) {
  let total = 0;
  for (let b = 0; b < 2; b++) {
    const logits = referenceSpanLogits(
      config,
      params,
      ids.slice(b * length, (b + 1) * length),
      Array.from(match.slice(b * length, (b + 1) * length)),
    );
    const { startBias, endBias } = spanBiases(candidates, length, starts[b]);
    const lp = (k: 0 | 1, bias: Float32Array, at: number) => {
      const v = logits.map((l, t) => l[k] + bias[t]);
      const max = Math.max(...v);
      return v[at] - (max + Math.log(v.reduce((s, x) => s + Math.exp(x - max), 0)));
    };
    total += weights[b] * (lp(0, startBias, starts[b]) + lp(1, endBias, ends[b]));
  }
  return total;
}

/** Expects both rows of the span graph's logits to be the float64 reference's, `reference(row)` for each row. */
function expectReference(
  out: { start: Float32Array; end: Float32Array },
  reference: (row: (a: ArrayLike<number>) => number[]) => [number, number][],
) {
  for (let b = 0; b < 2; b++) {
    const row = (a: ArrayLike<number>) => Array.from(a).slice(b * length, (b + 1) * length);
    reference(row).forEach(([s, e], t) => {
      expect(out.start[b * length + t]).toBeCloseTo(s, 4);
      expect(out.end[b * length + t]).toBeCloseTo(e, 4);
    });
  }
}

/** The two rows' batch for `spanTrainStep`, spans (4, 5) and the no-answer position, with a reader's extra inputs. */
function trainBatch(inputs: { feature?: number[]; tag?: number[]; vector?: number[] }) {
  const rows = [spanBiases(candidates, length, 4), spanBiases(candidates, length, 6)];
  return {
    batch: 2,
    length,
    ids,
    match,
    ...inputs,
    startBias: Float32Array.from([...rows[0].startBias, ...rows[1].startBias]),
    endBias: Float32Array.from([...rows[0].endBias, ...rows[1].endBias]),
    start: [4, 6],
    end: [5, 6],
  };
}

describe('span head', () => {
  it('gives the reference logits, and the exact-match input changes them', async () => {
    const params = initParams(config, 5, 0.3);
    const graphs = new ModelGraphs(config);
    const out = await graphs.spanLogits(params, { batch: 2, length, ids, match });
    for (let b = 0; b < 2; b++) {
      const ref = referenceSpanLogits(
        config,
        params,
        ids.slice(b * length, (b + 1) * length),
        Array.from(match.slice(b * length, (b + 1) * length)),
      );
      ref.forEach(([s, e], t) => {
        expect(out.start[b * length + t]).toBeCloseTo(s, 4);
        expect(out.end[b * length + t]).toBeCloseTo(e, 4);
      });
    }
    const without = await graphs.spanLogits(params, { batch: 2, length, ids, match: new Float32Array(2 * length) });
    expect(without.start[1]).not.toBeCloseTo(out.start[1], 3);
    expect(without.start[0]).toBeCloseTo(out.start[0], 5); // position 0 has no match and sees nothing after it
    await graphs.release();
  });

  it('returns the reference objective and gradients that match finite differences', async () => {
    const params = initParams(config, 7, 0.3);
    const graphs = new ModelGraphs(config);
    const starts = [4, 6];
    const ends = [5, 6];
    const weights = [-1, -0.5];
    const rows = [0, 1].map((b) => spanBiases(candidates, length, starts[b]));
    const batch = {
      batch: 2,
      length,
      ids,
      match,
      startBias: Float32Array.from([...rows[0].startBias, ...rows[1].startBias]),
      endBias: Float32Array.from([...rows[0].endBias, ...rows[1].endBias]),
      start: starts,
      end: ends,
    };
    const out = await graphs.spanTrainStep(params, batch, Float32Array.from(weights));
    expect(out.loss).toBeCloseTo(referenceObjective(params, starts, ends, weights), 4);
    for (const name of [MATCH_EMBEDDING, 'reader.span_head.weight', 'model.layers.1.mlp.up_proj.weight']) {
      const p = params.get(name)!;
      for (const i of [0, 5]) {
        const h = 1e-3;
        const saved = p[i];
        p[i] = saved + h;
        const up = referenceObjective(params, starts, ends, weights);
        p[i] = saved - h;
        const down = referenceObjective(params, starts, ends, weights);
        p[i] = saved;
        expect(out.grads.get(name)![i]).toBeCloseTo((up - down) / (2 * h), 3);
      }
    }
    await graphs.release();
  });

  it.each([
    {
      input: 'feature' as const,
      reader: { word_features: true },
      values: [0, 2, 12, 23, 1, 6, 0, 0, 3, 19, 2, 5, 0, 0],
      table: WORD_FEATURE_EMBEDDING,
      invalid: 99,
      refused: /word feature 99 at 0 is not a wordFeature id/,
    },
    {
      input: 'tag' as const,
      reader: { word_tags: true },
      values: [0, 1, 4, 18, 9, 9, 0, 0, 2, 3, 17, 5, 0, 0],
      table: WORD_TAG_EMBEDDING,
      invalid: 19,
      refused: /word tag 19 at 0 is not a WORD_TAGS index/,
    },
  ])('adds the $input input of a model that takes it, as the reference does', async (c) => {
    const reader = parseHfConfig({
      ...SMALL_HF_CONFIGS.llamaGqaUntied,
      fathom_reader: { exact_match: true, ...c.reader, span_head: true, max_span_tokens: 3 },
    });
    const params = initParams(reader, 11, 0.3);
    const graphs = new ModelGraphs(reader);
    const out = await graphs.spanLogits(params, { batch: 2, length, ids, match, [c.input]: c.values });
    expectReference(out, (row) =>
      referenceSpanLogits(reader, params, row(ids), row(match), { [c.input]: row(c.values) }),
    );
    const plain = await graphs.spanLogits(params, { batch: 2, length, ids, match });
    expect(plain.start[1]).not.toBeCloseTo(out.start[1], 3);
    expect(plain.start[0]).toBeCloseTo(out.start[0], 5); // id 0 is what an absent input feeds
    const step = await graphs.spanTrainStep(params, trainBatch({ [c.input]: c.values }), Float32Array.from([-1, -1]));
    const highest = Math.max(...c.values);
    const g = step.grads.get(c.table)!;
    expect(Math.hypot(...g.subarray(highest * reader.hiddenSize, (highest + 1) * reader.hiddenSize))).toBeGreaterThan(
      0,
    );
    await expect(
      graphs.spanLogits(params, { batch: 2, length, ids, match, [c.input]: c.values.map(() => c.invalid) }),
    ).rejects.toThrow(c.refused);
    await graphs.release();
  });

  it('adds the projected word vectors of a model with word vectors, as the reference does, and never trains them', async () => {
    const vectored = parseHfConfig({
      ...SMALL_HF_CONFIGS.llamaGqaUntied,
      fathom_reader: { exact_match: true, span_head: true, max_span_tokens: 3, word_vectors: { rows: 4, dims: 5 } },
    });
    const params = initParams(vectored, 13, 0.3);
    params.set(
      WORD_VECTORS,
      Float32Array.from({ length: 20 }, (_, i) => (i < 5 ? 0 : Math.sin(i))),
    );
    const graphs = new ModelGraphs(vectored);
    expect(graphs.weightSpecs.map((s) => s.name)).toContain(WORD_VECTORS);
    expect(graphs.trainableSpecs.map((s) => s.name)).not.toContain(WORD_VECTORS);
    const vector = [0, 3, 1, 0, 2, 2, 0, 0, 1, 0, 3, 0, 0, 0];
    const out = await graphs.spanLogits(params, { batch: 2, length, ids, match, vector });
    expectReference(out, (row) => referenceSpanLogits(vectored, params, row(ids), row(match), { vector: row(vector) }));
    const plain = await graphs.spanLogits(params, { batch: 2, length, ids, match });
    expect(plain.start[1]).not.toBeCloseTo(out.start[1], 3);
    expect(plain.start[0]).toBeCloseTo(out.start[0], 5); // row 0 is all zeros, what an absent input feeds
    const step = await graphs.spanTrainStep(params, trainBatch({ vector }), Float32Array.from([-1, -1]));
    expect(step.grads.has(WORD_VECTORS)).toBe(false);
    expect(Math.hypot(...step.grads.get(WORD_VECTOR_PROJ)!)).toBeGreaterThan(0);
    await expect(
      graphs.spanLogits(params, { batch: 2, length, ids, match, vector: vector.map(() => 4) }),
    ).rejects.toThrow(/word vector row 4 at 0 is not below 4/);
    expect(() => new SpanReader(graphs, params, new HashedWordTokenizer(16))).toThrow(/needs its word list/);
    await graphs.release();
  });

  it('refuses span calls on a model without the head', async () => {
    const plain = parseHfConfig(SMALL_HF_CONFIGS.llamaGqaUntied);
    const graphs = new ModelGraphs(plain);
    await expect(
      graphs.spanLogits(initParams(plain, 1), { batch: 1, length: 2, ids: [1, 2], match: new Float32Array(2) }),
    ).rejects.toThrow(/no span head/);
  });
});

describe('chooseSpan', () => {
  const c: SpanCandidates = { starts: [1, 3], ends: [1, 2, 4], none: 5, maxSpanTokens: 2 };

  it('takes the pair with the highest log p(start) + log p(end | start) within the cap', () => {
    const start = [0, 2, 0, 1, 0, 0];
    const end = [9, 0, 3, 0, 1, 0];
    const choice = chooseSpan(start, end, c, { temperature: 0 });
    expect(choice).toMatchObject({ start: 1, end: 2, answered: true });
    expect(choice.logprob).toBeLessThan(0);
  });

  it('answers no-answer when the no-answer position dominates, and samples only allowed spans', () => {
    expect(chooseSpan([0, 0, 0, 0, 0, 9], [0, 0, 0, 0, 0, 0], c, { temperature: 0 })).toMatchObject({
      start: 5,
      end: 5,
      answered: false,
    });
    for (let seed = 0; seed < 50; seed++) {
      const s = chooseSpan([0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], c, { temperature: 1, seed });
      expect([
        [1, 1],
        [1, 2],
        [3, 4],
        [5, 5],
      ]).toContainEqual([s.start, s.end]);
    }
  });
});
