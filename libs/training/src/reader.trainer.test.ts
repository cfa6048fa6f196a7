import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rng } from '@fathom/contracts';
import {
  HashedWordTokenizer,
  loadCheckpoint,
  WORD_FEATURE_EMBEDDING,
  WORD_VECTOR_PROJ,
  WORD_VECTORS,
  wordFeatureCount,
  readWordVectorSet,
  writeWordVectorSet,
} from '@fathom/model';
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

  it('keeps the word vectors of the words it replaces: it hides the hashed word, not its meaning', () => {
    const index = new Map(['engraved', 'beneath', 'one', 'reads', 'fogor'].map((w, i) => [w, i + 1]));
    const input = encodeReadInput(question, chunk, tokenizer, { wordVectors: { rows: 6, dims: 2, index } });
    const rowOf = (word: string) =>
      input.vector[input.words.find((w) => chunk.slice(w.charStart, w.charEnd) === word)!.tokStart];
    expect([rowOf('Engraved'), rowOf('fogor'), rowOf('QJ5')]).toEqual([1, 5, 0]);
    const all = wordNoise(input, tokenizer, { share: 1, rng: new Rng(1) });
    expect(all.ids).not.toEqual(input.ids);
    expect(all.vector).toEqual(input.vector);
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

  /** A tiny reader's config.json in the test folder, with these reading heads. */
  async function writeModelConfig(name: string, reader: Record<string, unknown>): Promise<string> {
    const path = join(dir, name);
    const config = { ...TINY_HF_CONFIG, vocab_size: 1028, max_position_embeddings: 1024, fathom_reader: reader };
    await writeFile(path, JSON.stringify(config));
    return path;
  }

  it('trains a reader with word features and sentence recency under word noise and saves its heads', async () => {
    const model = await writeModelConfig('config.json', {
      exact_match: true,
      word_features: true,
      sentence_recency: true,
      span_head: true,
      max_span_tokens: 6,
    });
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

  it('starts a reader from a word-vector set, trains the projection only, and saves the set with it', async () => {
    const model = await writeModelConfig('vectors-config.json', {
      exact_match: true,
      span_head: true,
      max_span_tokens: 6,
    });
    const set = join(dir, 'vectors');
    const index = new Map(['the', 'code', 'of', 'is'].map((w, i) => [w, i + 1]));
    const table = Float32Array.from({ length: 15 }, (_, i) => (i < 3 ? 0 : Math.cos(i)));
    await writeWordVectorSet(set, { vectors: { rows: 5, dims: 3, index }, table });
    const config = parseReaderSftConfig({
      kind: 'reader',
      model: { config: model, hashedWordBuckets: 1024, wordVectors: set },
      stages: [{ steps: 2, maxChunkChars: 400, evidenceShare: 1 }],
      batchSize: 4,
      evalEvery: 0,
      evalExamples: 4,
      out: join(dir, 'vectors-out'),
    });
    const { finalDir } = await runReaderSft(config);
    const saved = await loadCheckpoint(finalDir);
    expect(saved.config.reader?.wordVectors).toEqual({ rows: 5, dims: 3, index });
    expect(saved.params.get(WORD_VECTORS)).toEqual((await readWordVectorSet(set)).table); // the set's F16 values
    expect(saved.params.get(WORD_VECTOR_PROJ)?.length).toBe(32 * 3);
    expect(() => parseReaderSftConfig({ ...config, model: { checkpoint: finalDir, wordVectors: set } })).toThrow(
      /a checkpoint keeps its own/,
    );
  });
});
