import type { EpisodeTrajectory } from '@fathom/contracts';
import { grpoConfig, type TrainableGroup } from '@fathom/grpo';
import { createDefaultModel, generate, ModelGraphs, type ParamMap } from '@fathom/model';
import { AdamW } from '@fathom/tensor';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { packBatch } from '../tokens';
import { applyUpdate, type UpdateMetrics } from './learner';

const PAD = 259;
const sequences = [
  { ids: [10, 20, 30, 40, 50, 60, 70], mask: [0, 0, 0, 1, 1, 1, 1] },
  { ids: [5, 6, 7, 8], mask: [0, 1, 1, 1] },
  { ids: [9, 8, 7, 6, 5], mask: [0, 0, 1, 1, 1] },
];

describe('applyUpdate', () => {
  let graphs: ModelGraphs | undefined;
  afterAll(async () => graphs?.release());

  it('on-policy, takes the loss weights from the behaviour log-probs and runs no forward of its own', async () => {
    const model = await createDefaultModel(undefined, 3);
    graphs = new ModelGraphs(model.config);
    // Behaviour log-probs from the learner's own weights: exactly what an on-policy sampler reports.
    const packed = packBatch(sequences, { padId: PAD, padMultiple: 8, maxLength: 64 });
    const T = packed.batch.length;
    const lp = await graphs.logprobs(model.params, packed.batch);
    const trajectories = sequences.map(
      (s, b) =>
        ({
          taskId: 't',
          sampleIndex: b,
          status: 'answered',
          trainSubcalls: false,
          ids: s.ids,
          mask: s.mask,
          // A prompt token has no behaviour log-prob (0); a model token's is the learner's.
          logprobs: s.mask.map((m, i) => (m && i > 0 ? lp[b * T + i - 1] : 0)),
        }) as unknown as EpisodeTrajectory,
    );
    const group = (staleness: number): TrainableGroup[] => [
      { group: { trajectories } as TrainableGroup['group'], advantages: [1, -0.5, -0.5], staleness },
    ];
    const update = async (staleness: number) => {
      const params: ParamMap = new Map([...model.params].map(([k, v]) => [k, Float32Array.from(v)]));
      const optimizer = new AdamW(Object.fromEntries(params), { lr: 1e-3 });
      const spy = vi.spyOn(graphs!, 'logprobs');
      const learner = { graphs: graphs!, params, reference: null, optimizer, padId: PAD };
      const options = { grpo: grpoConfig({ beta: 0 }), microBatchSize: 2, padMultiple: 1, entropy: true };
      const metrics = (await applyUpdate(learner, group(staleness), options, 1)) as UpdateMetrics;
      const forwards = spy.mock.calls.length;
      spy.mockRestore();
      return { metrics, forwards, params };
    };

    const onPolicy = await update(0);
    const stale = await update(1);
    expect(onPolicy.forwards).toBe(0);
    expect(stale.forwards).toBe(2); // one per micro-batch of 2
    // Same loss, gradient and metrics on both paths: the behaviour log-probs are the learner's.
    expect(onPolicy.metrics.loss).toBeCloseTo(stale.metrics.loss, 5);
    expect(onPolicy.metrics.grad_norm).toBeCloseTo(stale.metrics.grad_norm, 4);
    expect(onPolicy.metrics.grad_norm).toBeGreaterThan(0);
    expect(onPolicy.metrics.entropy).toBeCloseTo(stale.metrics.entropy!, 5);
    // An untrained model is close to uniform over the 260 ids: entropy near ln 260.
    expect(onPolicy.metrics.entropy).toBeGreaterThan(0.9 * Math.log(260));
    // Measured from the train step's own forward on either path.
    expect(onPolicy.metrics.logprob_diff_max).toBeLessThan(1e-4);
    expect(onPolicy.metrics.trained_tokens).toBe(packed.trainedTokens);
    // Longest first: micro-batches of 6 + 4 and of 3 positions pad to 2×6 + 3, not 2×6 + 4 in the given order.
    expect(onPolicy.metrics.learner_tokens).toBe(13);
    expect(onPolicy.metrics.learner_padded_tokens).toBe(15);
    let maxDiff = 0;
    for (const [name, p] of onPolicy.params) {
      const q = stale.params.get(name)!;
      for (let i = 0; i < p.length; i++) maxDiff = Math.max(maxDiff, Math.abs(p[i] - q[i]));
    }
    expect(maxDiff).toBeLessThan(1e-5);
  });

  it('scores an extractive read under its span constraint, as the sampler drew it', async () => {
    const model = await createDefaultModel(undefined, 4);
    const own = new ModelGraphs(model.config);
    const prompt = [40, 41, 42, 43, 44, 45];
    const chunk = [70, 71, 72, 32, 73, 74, 32, 75, 76, 77];
    const unknown = [117, 110, 107];
    const span = { sources: [chunk, unknown], stopTokens: [258], wordTokens: [70, 71, 72, 73, 74, 75, 76, 77] };
    const decoder = own.decoder(model.params);
    const completions = await generate(decoder, prompt, {
      n: 4,
      maxNewTokens: 8,
      seed: 3,
      stopTokens: span.stopTokens,
      spanOf: span.sources,
      spanWordTokens: span.wordTokens,
    });
    await decoder.release();
    const trajectories = completions.map(
      (c, b) =>
        ({
          taskId: 't',
          sampleIndex: b,
          status: 'answered',
          trainSubcalls: true,
          trainRoot: false,
          recursionTree: {
            children: [
              {
                kind: 'leaf',
                children: [],
                sequence: {
                  ids: [...prompt, ...c.tokens],
                  logprobs: [...prompt.map(() => 0), ...c.logprobs],
                  mask: [...prompt.map(() => 0), ...c.tokens.map(() => 1)],
                  span,
                },
              },
            ],
          },
        }) as unknown as EpisodeTrajectory,
    );
    const update = async (withSpan: boolean) => {
      const params: ParamMap = new Map([...model.params].map(([k, v]) => [k, Float32Array.from(v)]));
      const learner = {
        graphs: own,
        params,
        reference: null,
        padId: PAD,
        optimizer: new AdamW(Object.fromEntries(params), { lr: 1e-3 }),
      };
      const group = {
        trajectories: trajectories.map((t) => {
          const leaf = t.recursionTree.children[0];
          const { span: _, ...plain } = leaf.sequence!;
          return withSpan
            ? t
            : { ...t, recursionTree: { ...t.recursionTree, children: [{ ...leaf, sequence: plain }] } };
        }),
      } as TrainableGroup['group'];
      const options = { grpo: grpoConfig({ beta: 0 }), microBatchSize: 4, padMultiple: 8, entropy: false };
      return (await applyUpdate(learner, [{ group, advantages: [1, -1, 1, -1], staleness: 0 }], options, 1))!;
    };
    const constrained = await update(true);
    expect(Object.keys(constrained.logprob_diff_per_turn)).toEqual(['subcall']);
    expect(constrained.trained_sequences).toBe(4);
    expect(constrained.logprob_diff_max).toBeLessThan(1e-4);
    // Scored without the constraint, an untrained model puts most of its mass outside the span: far from the sampler.
    expect((await update(false)).logprob_diff_mean).toBeGreaterThan(1);
    await own.release();
  });
});
