import { playCells, type TeacherStrategy } from './types';

/**
 * `niah`: "What colour is the mirror?" (needle and distractor forms: docs/DATASETS.md). Every cell starts from
 * the object read out of `question`, and the last cell answers the colour or `unknown`.
 */

const OBJECT = String.raw`const o = question.match(/the (.+)\?/)[1];`;
const MENTIONS = String.raw`ctx.match(RegExp('[^.]*\\b' + o + '\\b[^.]*\\.', 'g'))`;
const PRECISE = String.raw`const m = ctx.match(RegExp('(?:the ' + o + ' is|painted the ' + o + ') (\\w+)\\.|(\\w+) is the colour of the ' + o + '\\.', 'i'));
answer(m ? m[1] || m[2] : 'unknown')`;
const FIRST_MENTION = String.raw`const m = ctx.match(RegExp('\\b' + o + '\\b[^.]* (\\w+)\\.'));
answer(m ? m[1] : 'unknown')`;

export const NIAH_STRATEGIES: readonly TeacherStrategy<'niah'>[] = [
  {
    name: 'niah.precise_regex',
    type: 'niah',
    robust: true,
    usesLlm: false,
    summary: 'one regex for the three accepted needle forms; answers the colour',
    next: (_q, obs) => playCells([`${OBJECT}\n${PRECISE}`], obs),
  },
  {
    name: 'niah.read_mentions',
    type: 'niah',
    robust: true,
    usesLlm: false,
    summary: 'prints every sentence naming the object, then runs the precise regex and answers the colour',
    next: (_q, obs) => playCells([`${OBJECT}\nfor (const s of ${MENTIONS}) print(s.trim())`, PRECISE], obs),
  },
  {
    name: 'niah.llm_mentions',
    type: 'niah',
    robust: true,
    usesLlm: true,
    summary: 'passes every sentence naming the object to llm() with the question; answers what it returns',
    next: (_q, obs) => playCells([`${OBJECT}\nanswer(llm(question, ${MENTIONS}.join('')))`], obs),
  },
  {
    name: 'niah.exact_phrase',
    type: 'niah',
    robust: false,
    usesLlm: false,
    summary:
      '`the <object> is (\\w+)\\.` only; when a paraphrase leaves it empty, falls back to the first mention (look, refine, answer)',
    next: (_q, obs) =>
      playCells(
        [
          String.raw`${OBJECT}
const m = ctx.match(RegExp('the ' + o + ' is (\\w+)\\.', 'i'));
if (m) answer(m[1]);
else print('unknown')`,
          FIRST_MENTION,
        ],
        obs,
      ),
  },
  {
    name: 'niah.first_mention',
    type: 'niah',
    robust: false,
    usesLlm: false,
    summary: 'last word of the first sentence naming the object; fooled by near misses and decoys placed first',
    next: (_q, obs) => playCells([`${OBJECT}\n${FIRST_MENTION}`], obs),
  },
  {
    name: 'niah.llm_window',
    type: 'niah',
    robust: false,
    usesLlm: true,
    summary: 'llm() on 200 characters around the first mention; "unknown" when the needle is not there',
    next: (_q, obs) =>
      playCells([`${OBJECT}\nconst i = ctx.indexOf(o);\nanswer(llm(question, ctx.substring(i - 99, i + 99)))`], obs),
  },
];
