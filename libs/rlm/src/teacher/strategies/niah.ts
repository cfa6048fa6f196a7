import { readColour } from '../reader';
import { answer, answerPrinted, code, lookThenRefine, quote, type TeacherStrategy } from './types';

/** `niah`: "What colour is the mirror?" (needle and distractor forms: docs/DATASETS.md). */

const firstMentionCode = (o: string): string =>
  String.raw`const m = ctx.match(/\b${o}\b[^.]* (\w+)\./); print(m && m[1])`;
const mentionsRegex = (o: string): string => String.raw`/[^.]*\b${o}\b[^.]*\./g`;

export const NIAH_STRATEGIES: readonly TeacherStrategy<'niah'>[] = [
  {
    name: 'niah.precise_regex',
    type: 'niah',
    robust: true,
    usesLlm: false,
    summary: 'one regex for the three accepted needle forms; prints the colour',
    next: (q, obs) =>
      obs.length === 0
        ? code(
            String.raw`const m = ctx.match(/(?:the ${q.object} is|painted the ${q.object}) (\w+)\.|(\w+) is the colour of the ${q.object}\./i); print(m && (m[1] || m[2]))`,
          )
        : answerPrinted(obs),
  },
  {
    name: 'niah.read_mentions',
    type: 'niah',
    robust: true,
    usesLlm: false,
    summary: 'prints every sentence naming the object; the answer is read from the one that states its colour now',
    next: (q, obs) =>
      obs.length === 0
        ? code(`for (const s of ctx.match(${mentionsRegex(q.object)})) print(s.trim())`)
        : answer(readColour(q.object, obs[0])),
  },
  {
    name: 'niah.llm_mentions',
    type: 'niah',
    robust: true,
    usesLlm: true,
    summary: 'passes every sentence naming the object to llm() with the question',
    next: (q, obs) =>
      obs.length === 0
        ? code(`const s = ctx.match(${mentionsRegex(q.object)}).join(''); print(llm(${quote(q.text)}, s))`)
        : answerPrinted(obs),
  },
  {
    name: 'niah.exact_phrase',
    type: 'niah',
    robust: false,
    usesLlm: false,
    summary:
      '`the <object> is (\\w+)\\.` only; when a paraphrase leaves it empty, falls back to the first mention (look, refine, answer)',
    next: (q, obs) =>
      lookThenRefine(
        String.raw`const m = ctx.match(/the ${q.object} is (\w+)\./i); print(m && m[1])`,
        firstMentionCode(q.object),
        obs,
      ),
  },
  {
    name: 'niah.first_mention',
    type: 'niah',
    robust: false,
    usesLlm: false,
    summary: 'last word of the first sentence naming the object; fooled by near misses and decoys placed first',
    next: (q, obs) => (obs.length === 0 ? code(firstMentionCode(q.object)) : answerPrinted(obs)),
  },
  {
    name: 'niah.llm_window',
    type: 'niah',
    robust: false,
    usesLlm: true,
    summary: 'llm() on 200 characters around the first mention; "unknown" when the needle is not there',
    next: (q, obs) =>
      obs.length === 0
        ? code(`const i = ctx.indexOf('${q.object}'); print(llm(${quote(q.text)}, ctx.substring(i - 99, i + 99)))`)
        : answerPrinted(obs),
  },
];
