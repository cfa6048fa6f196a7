/**
 * How often the sentence that states the fact holds more of the question's content words than every distractor
 * sentence of its chunk, by three ways of matching a word: DrQA's case-folded exact match (the reader's input), a
 * five-letter prefix stem, and compromise's lemma (DrQA's third match feature). No model is trained: if a looser
 * match rarely marks the evidence sentence as the most question-like one, a lemma-match input cannot be the lever.
 *
 *   node_modules/.bin/node --no-node-snapshot --import tsx experiments/pos-tags/overlap-probe.ts
 */
import { generateReaderExamples } from '@fathom/tasks';
import { questionWords } from '@fathom/rlm';
import nlp from 'compromise';

const WORD = /[\p{L}\p{N}]+/gu;
const lemmas = new Map<string, string>();
function lemma(word: string): string {
  const folded = word.toLowerCase();
  let root = lemmas.get(folded);
  if (root === undefined) {
    const [sentence] = nlp(folded).compute('root').json() as { terms: { root?: string; normal: string }[] }[];
    root = sentence?.terms[0]?.root ?? sentence?.terms[0]?.normal ?? folded;
    lemmas.set(folded, root);
  }
  return root;
}
const MATCHES: [string, (word: string) => string][] = [
  ['exact (case-folded)', (w) => w.toLowerCase()],
  ['prefix stem (5 letters)', (w) => w.toLowerCase().slice(0, 5)],
  ['lemma (compromise)', lemma],
];

type Tally = { examples: number; best: number[]; tied: number[] };
const tallies = new Map<string, Tally>();
for (const seed of [7, 21]) {
  for (const example of generateReaderExamples({ split: 'heldout', n: 400, seed, maxChunkChars: 1000 })) {
    if (example.answer === 'unknown' || example.distractors.length === 0) continue;
    let from = 0;
    const sentences = example.chunk.split(/(?<=[.!?])\s+/).map((text) => {
      const start = example.chunk.indexOf(text, from);
      from = start + text.length;
      return { text, start, end: start + text.length };
    });
    const isDistractor = (s: { start: number; end: number }) =>
      example.distractors.some((d) => d.start < s.end && d.end > s.start);
    const evidence = sentences.find(
      (s) => !isDistractor(s) && s.text.toLowerCase().includes(example.answer.toLowerCase()),
    );
    if (evidence === undefined) continue;
    const distractors = sentences.filter(isDistractor);
    const tally = tallies.get(example.family) ?? {
      examples: 0,
      best: MATCHES.map(() => 0),
      tied: MATCHES.map(() => 0),
    };
    tally.examples++;
    MATCHES.forEach(([, form], i) => {
      const asked = new Set([...questionWords(example.question)].map(form));
      const held = (text: string) =>
        new Set([...text.matchAll(WORD)].map((m) => form(m[0])).filter((w) => asked.has(w))).size;
      const mostElsewhere = Math.max(...distractors.map((d) => held(d.text)));
      if (held(evidence.text) > mostElsewhere) tally.best[i]++;
      else if (held(evidence.text) === mostElsewhere) tally.tied[i]++;
    });
    tallies.set(example.family, tally);
  }
}
for (const [family, tally] of tallies) {
  console.log(`frames of the ${family} families, ${tally.examples} examples with a stated fact and a distractor`);
  MATCHES.forEach(([name], i) => {
    const share = (n: number) => `${((100 * n) / tally.examples).toFixed(1)}%`;
    console.log(`  ${name}: evidence holds the most ${share(tally.best[i])}, tied ${share(tally.tied[i])}`);
  });
}
