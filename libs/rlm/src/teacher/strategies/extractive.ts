import { readCity } from '../reader';
import { answer, answerPrinted, code, lookThenRefine, quote, type TeacherStrategy } from './types';

/** `extractive`: "In which city was the 1987 Harbour Accord signed?" (forms: docs/DATASETS.md). */

/** The documented naive search: the first "in <City>" after the agreement's name, ignoring the year. */
const firstHitCode = (name: string): string =>
  String.raw`const m = ctx.match(/${name}[^.]*? in ([A-Z]\w+)/); print(m && m[1])`;
const mentionsRegex = (key: string): string => String.raw`/[^.]*${key}[^.]*\./g`;

export const EXTRACTIVE_STRATEGIES: readonly TeacherStrategy<'extractive'>[] = [
  {
    name: 'extractive.read_signed',
    type: 'extractive',
    robust: true,
    usesLlm: false,
    summary: 'prints the sentences naming the agreement (with its year) that mention signing; reads the city',
    next: (q, obs) =>
      obs.length === 0
        ? code(`for (const s of ctx.match(${mentionsRegex(q.key)})) if (s.includes('sign')) print(s.trim())`)
        : answer(readCity(q.key, obs[0])),
  },
  {
    name: 'extractive.read_mentions',
    type: 'extractive',
    robust: true,
    usesLlm: false,
    summary: 'prints every sentence naming the agreement with its year; reads the one about the signing',
    next: (q, obs) =>
      obs.length === 0
        ? code(`for (const s of ctx.match(${mentionsRegex(q.key)})) print(s.trim())`)
        : answer(readCity(q.key, obs[0])),
  },
  {
    name: 'extractive.llm_mentions',
    type: 'extractive',
    robust: true,
    usesLlm: true,
    summary: 'passes every sentence naming the agreement with its year to llm() with the question',
    next: (q, obs) =>
      obs.length === 0
        ? code(`const s = ctx.match(${mentionsRegex(q.key)}).join(''); print(llm(${quote(q.text)}, s))`)
        : answerPrinted(obs),
  },
  {
    name: 'extractive.exact_phrase',
    type: 'extractive',
    robust: false,
    usesLlm: false,
    summary: '`<key> was signed in (\\w+)` only; a paraphrase leaves it empty and it falls back to the first hit',
    next: (q, obs) =>
      lookThenRefine(
        String.raw`const m = ctx.match(/${q.key} was signed in (\w+)/); print(m && m[1])`,
        firstHitCode(q.name),
        obs,
      ),
  },
  {
    name: 'extractive.first_hit',
    type: 'extractive',
    robust: false,
    usesLlm: false,
    summary: 'first `in <City>` after the name without the year; fooled by near misses and other years or kinds',
    next: (q, obs) => (obs.length === 0 ? code(firstHitCode(q.name)) : answerPrinted(obs)),
  },
  {
    name: 'extractive.llm_window',
    type: 'extractive',
    robust: false,
    usesLlm: true,
    summary: 'llm() on 200 characters around the first mention of the name; "unknown" when the needle is not there',
    next: (q, obs) =>
      obs.length === 0
        ? code(`const i = ctx.indexOf('${q.name}'); print(llm(${quote(q.text)}, ctx.substring(i - 99, i + 99)))`)
        : answerPrinted(obs),
  },
];
