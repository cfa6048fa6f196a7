import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCheckpoint, saveCheckpoint } from './checkpoint';
import { parseHfConfig } from './config';
import { initParams, WORD_VECTORS } from './params';
import { SMALL_HF_CONFIGS } from './testing/configs';
import { HashedWordTokenizer } from './tokenizer/hashed-word.tokenizer';
import { parseWordList, readWordVectorSet, WORD_LIST_FILE, WORD_TABLE_FILE, writeWordVectorSet } from './word-vectors';

const dirs: string[] = [];
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'fathom-vectors-'));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const index = new Map([
  ['the', 1],
  ['nobody', 2],
  [',', 3],
]);

describe('word vectors', () => {
  it('parse a word list into rows from 1 and name a list that does not fit its table', () => {
    expect(parseWordList('the\nnobody\n,\n', 4, 'w')).toEqual(index);
    expect(() => parseWordList('the\nnobody\n', 4, 'w')).toThrow(/w: 2 words for a table of 4 rows/);
    expect(() => parseWordList('the\nNobody\n,\n', 4, 'w')).toThrow(/line 2 'Nobody' is not one case-folded word/);
    expect(() => parseWordList('the\nthe\n,\n', 4, 'w')).toThrow(/'the' is listed twice/);
  });

  it('round-trip a word-vector set, and refuse one whose row 0 is not zeros', async () => {
    const dir = await tempDir();
    const table = Float32Array.from({ length: 8 }, (_, i) => (i < 2 ? 0 : i / 4));
    await writeWordVectorSet(dir, { vectors: { rows: 4, dims: 2, index }, table });
    const set = await readWordVectorSet(dir);
    expect(set.vectors).toEqual({ rows: 4, dims: 2, index });
    expect(Array.from(set.table)).toEqual(Array.from(table));
    await writeWordVectorSet(dir, { vectors: { rows: 4, dims: 2, index }, table: table.map(() => 1) });
    await expect(readWordVectorSet(dir)).rejects.toThrow(/row 0 .* is not all zeros/);
    await expect(readWordVectorSet(await tempDir())).rejects.toThrow(new RegExp(`${WORD_TABLE_FILE}.*word-vectors.sh`));
  });

  it('travel with a reader checkpoint: config.json declares them, word_vectors.txt lists their words', async () => {
    const dir = await tempDir();
    const config = parseHfConfig({
      ...SMALL_HF_CONFIGS.llamaGqaUntied,
      vocab_size: 40,
      fathom_reader: { span_head: true, max_span_tokens: 3, word_vectors: { rows: 4, dims: 5 } },
    });
    config.reader!.wordVectors = { ...config.reader!.wordVectors!, index };
    const params = initParams(config, 3, 0.3);
    params.set(
      WORD_VECTORS,
      Float32Array.from({ length: 20 }, (_, i) => (i < 5 ? 0 : i / 8)),
    );
    const tokenizer = new HashedWordTokenizer(32);
    await saveCheckpoint(dir, { config, params, tokenizer, generationConfig: null });
    const loaded = await loadCheckpoint(dir);
    expect(loaded.config.reader?.wordVectors).toEqual({ rows: 4, dims: 5, index });
    expect(Array.from(loaded.params.get(WORD_VECTORS)!)).toEqual(Array.from(params.get(WORD_VECTORS)!));
    await writeFile(join(dir, WORD_LIST_FILE), 'the\n');
    await expect(loadCheckpoint(dir)).rejects.toThrow(/1 words for a table of 4 rows/);
    const { index: _, ...unlisted } = config.reader!.wordVectors!;
    await expect(
      saveCheckpoint(await tempDir(), {
        config: { ...config, reader: { ...config.reader!, wordVectors: unlisted } },
        params,
        tokenizer,
        generationConfig: null,
      }),
    ).rejects.toThrow(/no word list to save/);
  });
});
