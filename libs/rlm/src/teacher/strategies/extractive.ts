import { playCells, type TeacherStrategy } from './types';

/**
 * `extractive`: "In which city was the 1987 Harbour Accord signed?" (forms: docs/DATASETS.md). Every cell starts
 * from the agreement read out of `question` (`k` with its year, `n` without), and the last cell answers the
 * city or `unknown`.
 */

const KEY = String.raw`const k = question.match(/the (\d+ .+) signed/)[1];`;
const NAME = String.raw`const n = k.replace(/^\d+ /, '');`;
const MENTIONS = String.raw`ctx.match(RegExp('[^.]*' + k + '[^.]*\\.', 'g'))`;
/** The sentence naming the agreement with its year that mentions signing; the city in any of the four forms. */
const READ_SIGNED = String.raw`const s = ${MENTIONS}.find((x) => x.includes('sign'));
const m = s && (s.match(/ in ([A-Z]\w+)/) || s.match(/(\w+) hosted/));
answer(m ? m[1] : 'unknown')`;
/** The documented naive search: the first "in <City>" after the agreement's name, ignoring the year. */
const FIRST_HIT = String.raw`${NAME}
const m = ctx.match(RegExp(n + '[^.]*? in ([A-Z]\\w+)'));
answer(m ? m[1] : 'unknown')`;

export const EXTRACTIVE_STRATEGIES: readonly TeacherStrategy<'extractive'>[] = [
  {
    name: 'extractive.read_signed',
    type: 'extractive',
    robust: true,
    usesLlm: false,
    summary: 'takes the sentence naming the agreement (with its year) that mentions signing; answers its city',
    next: (_q, obs) => playCells([`${KEY}\n${READ_SIGNED}`], obs),
  },
  {
    name: 'extractive.read_mentions',
    type: 'extractive',
    robust: true,
    usesLlm: false,
    summary: 'prints every sentence naming the agreement with its year, then the city of the one about the signing',
    next: (_q, obs) => playCells([`${KEY}\nfor (const s of ${MENTIONS}) print(s.trim())`, READ_SIGNED], obs),
  },
  {
    name: 'extractive.llm_mentions',
    type: 'extractive',
    robust: true,
    usesLlm: true,
    summary: 'passes every sentence naming the agreement with its year to llm() with the question',
    next: (_q, obs) => playCells([`${KEY}\nanswer(llm(question, ${MENTIONS}.join('')))`], obs),
  },
  {
    name: 'extractive.exact_phrase',
    type: 'extractive',
    robust: false,
    usesLlm: false,
    summary: '`<key> was signed in (\\w+)` only; a paraphrase leaves it empty and it falls back to the first hit',
    next: (_q, obs) =>
      playCells(
        [
          String.raw`${KEY}
const m = ctx.match(RegExp(k + ' was signed in (\\w+)'));
if (m) answer(m[1]);
else print('unknown')`,
          FIRST_HIT,
        ],
        obs,
      ),
  },
  {
    name: 'extractive.first_hit',
    type: 'extractive',
    robust: false,
    usesLlm: false,
    summary: 'first `in <City>` after the name without the year; fooled by near misses and other years or kinds',
    next: (_q, obs) => playCells([`${KEY}\n${FIRST_HIT}`], obs),
  },
  {
    name: 'extractive.llm_window',
    type: 'extractive',
    robust: false,
    usesLlm: true,
    summary: 'llm() on 200 characters around the first mention of the name; "unknown" when the needle is not there',
    next: (_q, obs) =>
      playCells(
        [`${KEY}\n${NAME}\nconst i = ctx.indexOf(n);\nanswer(llm(question, ctx.substring(i - 99, i + 99)))`],
        obs,
      ),
  },
];
