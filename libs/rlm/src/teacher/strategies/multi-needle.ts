import { playCells, type TeacherStrategy } from './types';

/**
 * `multi_needle`: "What is the total price, in dollars, of the lamp, the drill and the globe?". Every cell starts
 * from the items read out of `question`; the sum is always computed by code, and the last cell answers the total
 * or `unknown` when a price was not found.
 */

const ITEMS = String.raw`const items = question.match(/dollars, of (.+)\?/)[1].split(/, | and /).map((x) => x.replace(/^the /, ''));`;
/** Each item's current price in any of the four accepted forms, summed. */
const SUM_ACCEPTED = String.raw`let t = 0;
for (const w of items) {
  const m = ctx.match(RegExp('he ' + w + ' costs \\$([\\d,]+)\\.|An? ' + w + ' sells for ([\\d,]+) |For \\$([\\d,]+) you can buy the ' + w + '\\.|price of the ' + w + ' is \\$([\\d,]+)'));
  t += m ? +(m[1] || m[2] || m[3] || m[4]).replace(/,/g, '') : NaN;
}
answer(t || 'unknown')`;

export const MULTI_NEEDLE_STRATEGIES: readonly TeacherStrategy<'multi_needle'>[] = [
  {
    name: 'multi_needle.precise_regex',
    type: 'multi_needle',
    robust: true,
    usesLlm: false,
    summary:
      'one regex per item for the four accepted price forms; sums the prices with code, `unknown` if one is missing',
    next: (_q, obs) => playCells([`${ITEMS}\n${SUM_ACCEPTED}`], obs),
  },
  {
    name: 'multi_needle.llm_per_item',
    type: 'multi_needle',
    robust: true,
    usesLlm: true,
    summary: 'one llm() call per item on the sentences naming it; sums the answers with code',
    next: (_q, obs) =>
      playCells(
        [
          String.raw`${ITEMS}
let t = 0;
for (const w of items) t += +llm('What is the price of the ' + w + '?', ctx.match(RegExp('[^.]*' + w + '[^.]*\\.', 'g')).join('')).replace(/,/g, '');
answer(t || 'unknown')`,
        ],
        obs,
      ),
  },
  {
    name: 'multi_needle.first_number',
    type: 'multi_needle',
    robust: false,
    usesLlm: false,
    summary: 'for each item the first number after its first mention in a sentence; fooled by near misses and decoys',
    next: (_q, obs) =>
      playCells(
        [
          String.raw`${ITEMS}
let t = 0;
for (const w of items) {
  const m = ctx.match(RegExp(w + '[^.\\d]*([\\d,]+)'));
  t += m ? +m[1].replace(/,/g, '') : NaN;
}
answer(t || 'unknown')`,
        ],
        obs,
      ),
  },
];
