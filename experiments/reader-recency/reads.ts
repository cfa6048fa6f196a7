/**
 * Probe (experiments/reader-recency/NOTE.md): every leaf read of a reader on heldout reader examples, by type and
 * phrasing family together, and the wrong reads of one slice, so the reader's misses can be read.
 *
 * Usage: node --no-node-snapshot --import tsx experiments/reader-recency/reads.ts READER_DIR [SEED] [N]
 *   SHOW=<type>:<family> prints that slice's wrong reads with their chunks.
 */
import { isCorrect } from '@fathom/rewards';
import { generateReaderExamples } from '@fathom/tasks';
import { loadPolicy } from '@fathom/training';

const [reader, seedArg = '7', nArg = '400'] = process.argv.slice(2);
if (reader === undefined) throw new Error('usage: reads.ts READER_DIR [SEED] [N]');
const loaded = await loadPolicy(reader);
const { readSpan } = loaded.policy;
if (readSpan === undefined) throw new Error(`${reader} has no span head`);
const examples = [
  ...generateReaderExamples({ split: 'heldout', n: Number(nArg), seed: Number(seedArg), maxChunkChars: 1000 }),
];
const slices = new Map<string, { n: number; right: number }>();
try {
  for (const example of examples) {
    const read = await readSpan.call(loaded.policy, {
      question: example.question,
      chunk: example.chunk,
      temperature: 0,
      seed: 0,
    });
    const right = isCorrect(read.text, {
      question: example.question,
      answer: example.answer,
      aliases: [],
      context_tokens: 0,
    });
    const slice = `${example.type}:${example.family}`;
    const s = slices.get(slice) ?? { n: 0, right: 0 };
    s.n++;
    if (right) s.right++;
    slices.set(slice, s);
    if (!right && process.env.SHOW === slice)
      console.log(`Q: ${example.question}\nGOLD: ${example.answer} | READ: ${read.text}\n${example.chunk}\n`);
  }
  for (const [slice, s] of [...slices].sort())
    console.log(`${slice.padEnd(22)} ${((100 * s.right) / s.n).toFixed(1).padStart(5)}% (${s.right}/${s.n})`);
} finally {
  await loaded.release();
}
