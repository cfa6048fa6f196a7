import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rng } from '@fathom/contracts';
import { HashedWordTokenizer, loadCheckpoint, WORD_FEATURE_EMBEDDING, wordFeatureCount } from '@fathom/model';
import { encodeReadInput } from '@fathom/rlm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReaderSftConfig, runReaderSft, wordNoise } from './reader.trainer';
import { TINY_HF_CONFIG } from './testing/fixtures';

const tokenizer = new HashedWordTokenizer(4096);
const question = 'What is the code of the murenur fogor?';
const chunk = 'Engraved beneath the murenur fogor, one reads QJ5-QHW.';

describe('wordNoise', () => {
  it('replaces the ids of chunk words outside the question, and nothing else', () => {
    const input = encodeReadInput(question, chunk, tokenizer);
    const before = [...input.ids];
    const all = wordNoise(input, tokenizer, { share: 1, rng: new Rng(1) });
    expect(input.ids).toEqual(before); // the input is not touched
    const changed = all.ids.flatMap((id, t) => (id === before[t] ? [] : [t]));
    const expected = input.words
      .filter((w) => input.match[w.tokStart] === 0)
      .flatMap((w) => Array.from({ length: w.tokEnd - w.tokStart + 1 }, (_, k) => w.tokStart + k));
    expect(changed.length).toBeGreaterThan(expected.length - 2); // a random id may equal the old one
    expect(changed.every((t) => expected.includes(t))).toBe(true);
    expect(changed.every((t) => all.ids[t] >= tokenizer.specialTokens.size && all.ids[t] < tokenizer.vocabSize)).toBe(
      true,
    );
    expect(all.feature).toEqual(input.feature);
    expect(wordNoise(input, tokenizer, { share: 0, rng: new Rng(1) }).ids).toEqual(before);
  });
});

describe('runReaderSft', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fathom-reader-sft-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('trains a reader with word features and sentence recency under word noise and saves its heads', async () => {
    const model = join(dir, 'config.json');
    await writeFile(
      model,
      JSON.stringify({
        ...TINY_HF_CONFIG,
        vocab_size: 1028,
        max_position_embeddings: 1024,
        fathom_reader: {
          exact_match: true,
          word_features: true,
          sentence_recency: true,
          span_head: true,
          max_span_tokens: 6,
        },
      }),
    );
    const config = parseReaderSftConfig({
      kind: 'reader',
      model: { config: model, hashedWordBuckets: 1024 },
      stages: [{ steps: 3, maxChunkChars: 400, evidenceShare: 1, wordNoise: 0.3 }],
      batchSize: 4,
      evalEvery: 0,
      evalExamples: 4,
      out: join(dir, 'out'),
    });
    const { finalDir, last, lastEval } = await runReaderSft(config);
    expect(last?.step).toBe(3);
    expect(Number.isFinite(last?.loss)).toBe(true);
    expect(lastEval?.examples).toBe(4);
    const saved = await loadCheckpoint(finalDir);
    expect(saved.config.reader).toMatchObject({ wordFeatures: true, sentenceRecency: true });
    expect(saved.params.get(WORD_FEATURE_EMBEDDING)?.length).toBe(wordFeatureCount(true) * 32);
    const metrics = (await readFile(join(dir, 'out', 'metrics.jsonl'), 'utf8')).trim().split('\n');
    expect(metrics.map((l) => JSON.parse(l).kind)).toEqual(['train', 'train', 'train', 'eval']);
  });
});
