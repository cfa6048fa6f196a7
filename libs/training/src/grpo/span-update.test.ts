import type { EpisodeTrajectory, StepGroup } from '@fathom/contracts';
import { grpoConfig } from '@fathom/grpo';
import { HashedWordTokenizer, initParams, ModelGraphs, parseHfConfig, spanTrainBatch } from '@fathom/model';
import { encodeReadInput, spanReadInput } from '@fathom/rlm';
import { afterAll, describe, expect, it } from 'vitest';
import { createAdamW } from '../optimizer';
import { applyUpdate } from './learner';

const tokenizer = new HashedWordTokenizer(60);
const config = parseHfConfig({
  architectures: ['Qwen2ForCausalLM'],
  vocab_size: tokenizer.vocabSize,
  hidden_size: 16,
  intermediate_size: 32,
  num_hidden_layers: 1,
  num_attention_heads: 2,
  num_key_value_heads: 1,
  rms_norm_eps: 1e-6,
  max_position_embeddings: 256,
  tie_word_embeddings: true,
  fathom_reader: { max_span_tokens: 4 },
});
const chunk = 'The code of the murenur bator is K9-BKG. The code of the murenur fogor is QJ5-QHW.';
const encoded = encodeReadInput('What is the code of the murenur fogor?', chunk, tokenizer);
const input = spanReadInput(encoded);
const qj5 = encoded.words.find((w) => chunk.slice(w.charStart, w.charEnd) === 'QJ5')!.tokStart;
const read = { head: 'span' as const, start: qj5, end: qj5 + 2, logprob: -1, probability: Math.exp(-1), input };

/** A trajectory of a reader trained under a frozen root: no root tokens, one span read in its tree. */
function trajectory(): EpisodeTrajectory {
  const leaf = { depth: 1, kind: 'leaf', prompt: '', chunkChars: chunk.length, answer: 'QJ5-QHW', read, children: [] };
  return {
    status: 'ok',
    trainRoot: false,
    trainSubcalls: true,
    recursionTree: { depth: 0, kind: 'root', prompt: '', chunkChars: 0, answer: null, children: [leaf] },
  } as unknown as EpisodeTrajectory;
}

describe('applyUpdate with span reads', () => {
  const graphs = new ModelGraphs(config, { kind: 'full' }, { specializeShapes: false });
  afterAll(() => graphs.release());

  async function logpOfRead(params: Map<string, Float32Array>): Promise<number> {
    const batch = spanTrainBatch([{ ...input, start: read.start, end: read.end }], { padId: 0, maxSpanTokens: 4 });
    return (await graphs.spanTrainStep(params, batch, new Float32Array(1))).logprobs[0];
  }

  it.each([
    [1, 'raises'],
    [-1, 'lowers'],
  ])('with advantage %i %s the log-probability of the span the reader chose', async (advantage) => {
    const params = initParams(config, 4);
    const learner = {
      graphs,
      params,
      reference: null,
      optimizer: createAdamW(
        params,
        graphs.trainableSpecs,
        {
          lr: 0.05,
          warmupSteps: 0,
          minLr: 0.05,
          weightDecay: 0,
          maxGradNorm: 10,
          beta1: 0.9,
          beta2: 0.99,
        },
        1,
      ),
      padId: tokenizer.tokenId('<|pad|>')!,
    };
    const before = await logpOfRead(params);
    const group = { trajectories: [trajectory()] } as unknown as StepGroup;
    const metrics = await applyUpdate(
      learner,
      [{ group, advantages: [advantage], staleness: 0 }],
      { grpo: grpoConfig({ beta: 0 }), microBatchSize: 2, padMultiple: 8, entropy: false },
      1,
    );
    expect(metrics).toMatchObject({ trained_reads: 1, trained_sequences: 0 });
    const after = await logpOfRead(params);
    expect(Math.sign(after - before)).toBe(advantage);
    expect(Math.abs(after - before)).toBeGreaterThan(0.01);
  });
});
