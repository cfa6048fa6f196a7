import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WordVectors } from './config';
import { ModelError } from './errors';
import { WORD_VECTORS } from './params';
import { parseSafetensors, serializeSafetensors } from './safetensors';

/** A reader's word list beside its weights: one case-folded word per line, line i naming row i + 1. */
export const WORD_LIST_FILE = 'word_vectors.txt';
/** A word-vector set outside a checkpoint (`writeWordVectorSet`): the table as `reader.word_vectors`. */
export const WORD_TABLE_FILE = 'word_vectors.safetensors';

/** The word → row map of a word list (`WORD_LIST_FILE`) of a table with `rows` rows; throws naming what is wrong. */
export function parseWordList(text: string, rows: number, source: string): Map<string, number> {
  const words = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  if (words.length !== rows - 1)
    throw new ModelError(
      'INVALID_CONFIG',
      `${source}: ${words.length} words for a table of ${rows} rows (row 0 is none)`,
    );
  const index = new Map<string, number>();
  words.forEach((word, i) => {
    if (word === '' || word !== word.toLowerCase() || /\s/u.test(word))
      throw new ModelError('INVALID_CONFIG', `${source}: line ${i + 1} '${word}' is not one case-folded word`);
    if (index.has(word)) throw new ModelError('INVALID_CONFIG', `${source}: '${word}' is listed twice`);
    index.set(word, i + 1);
  });
  return index;
}

/** The word list of a row map, one word per line by row. */
export function formatWordList(index: ReadonlyMap<string, number>): string {
  const words = new Array<string>(index.size);
  for (const [word, row] of index) words[row - 1] = word;
  return words.join('\n') + '\n';
}

/** Reads a checkpoint folder's word list for the word vectors its config.json declares. */
export async function readWordList(dir: string, vectors: WordVectors): Promise<WordVectors> {
  const path = join(dir, WORD_LIST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ModelError('INVALID_CONFIG', `${path}: ${(error as Error).message} (config.json declares word vectors)`);
  }
  return { ...vectors, index: parseWordList(text, vectors.rows, path) };
}

/**
 * The word → row map of a reader's word vectors. A config rebuilt from config.json alone (not by `loadCheckpoint`)
 * has none, and a reader cannot encode a read without it.
 */
export function wordVectorIndex(vectors: WordVectors): ReadonlyMap<string, number> {
  if (vectors.index === undefined)
    throw new ModelError(
      'INVALID_CONFIG',
      'a reader with word vectors needs its word list (word_vectors.txt, attached by loadCheckpoint)',
    );
  return vectors.index;
}

/** Writes a checkpoint's word list; a config whose word vectors have no list cannot be saved. */
export async function writeWordList(dir: string, vectors: WordVectors): Promise<void> {
  if (vectors.index === undefined)
    throw new ModelError('INVALID_CONFIG', 'the word vectors have no word list to save (word_vectors.txt)');
  await writeFile(join(dir, WORD_LIST_FILE), formatWordList(vectors.index));
}

/** A pretrained word-vector set to start a reader from: its declaration (with the word list) and its table. */
export interface WordVectorSet {
  vectors: WordVectors;
  /** (rows, dims) row-major, row 0 zeros. */
  table: Float32Array;
}

/** Writes a word-vector set into `dir` (the word list and the table, F16); creates `dir`. */
export async function writeWordVectorSet(dir: string, set: WordVectorSet): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeWordList(dir, set.vectors);
  const tensor = { name: WORD_VECTORS, shape: [set.vectors.rows, set.vectors.dims], data: set.table };
  await writeFile(join(dir, WORD_TABLE_FILE), serializeSafetensors([tensor], 'F16', { format: 'pt' }));
}

/** Reads a word-vector set that `writeWordVectorSet` wrote. */
export async function readWordVectorSet(dir: string): Promise<WordVectorSet> {
  const path = join(dir, WORD_TABLE_FILE);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new ModelError(
      'INVALID_CONFIG',
      `${path}: ${(error as Error).message} (build it: bash scripts/word-vectors.sh)`,
    );
  }
  const tensor = parseSafetensors(bytes, path).tensors.get(WORD_VECTORS);
  if (tensor === undefined || tensor.shape.length !== 2)
    throw new ModelError('INVALID_TENSOR', `${path}: no (rows, dims) tensor '${WORD_VECTORS}'`);
  const [rows, dims] = tensor.shape;
  if (tensor.data.subarray(0, dims).some((v) => v !== 0))
    throw new ModelError('INVALID_TENSOR', `${path}: row 0 (a word without a vector) is not all zeros`);
  const vectors = await readWordList(dir, { rows, dims });
  return { vectors, table: tensor.data };
}
