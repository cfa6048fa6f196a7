import { withArticle } from '../text';
import { definePhrasings, defineFrames, type Frame, type Phrasing } from './types';

/**
 * multi_needle: the total price of several items. key = item, value = price with thousands separators and no
 * currency sign ("1,250"); questions are rendered with the item list ("the lamp, the drill and the globe").
 */
export const MULTI_NEEDLE_QUESTIONS: Phrasing[] = definePhrasings(
  'multi_needle.q',
  [
    (l) => `What is the total price, in dollars, of ${l}?`,
    (l) => `How much do ${l} cost altogether, in dollars?`,
    (l) => `In dollars, what do ${l} cost in total?`,
    (l) => `What would ${l} cost together, in dollars?`,
    (l) => `Add up the prices of ${l}. What is the total in dollars?`,
    (l) => `What is the combined price of ${l}, in dollars?`,
    (l) => `How many dollars do ${l} cost in all?`,
  ],
  [
    (l) => `If someone bought ${l}, how many dollars would they spend?`,
    (l) => `Summing the prices of ${l}, what do you get in dollars?`,
    (l) => `What sum, in dollars, buys ${l}?`,
    (l) => `Someone wants ${l}. What is the bill in dollars?`,
    (l) => `Tell me the dollar total for ${l}.`,
    (l) => `Paying for ${l} at once takes how many dollars?`,
  ],
);

/** The price of one item: the sub-question of each needle. */
export const MULTI_NEEDLE_PRICE_QUESTIONS: Phrasing[] = definePhrasings(
  'multi_needle.price',
  [(k) => `What does the ${k} cost?`, (k) => `What is the price of the ${k}?`],
  [(k) => `How much must one pay for the ${k}?`, (k) => `How many dollars does the ${k} go for?`],
);

export const MULTI_NEEDLE_FRAMES: Frame[] = [
  ...defineFrames(
    'multi_needle',
    'needle',
    [
      (s) => `The ${s.key} costs $${s.value}.`,
      (s) => `The price of the ${s.key} is $${s.value}.`,
      (s) => `For $${s.value} you can buy the ${s.key}.`,
      (s) => `${withArticle(s.key, true)} sells for ${s.value} dollars.`,
    ],
    [
      (s) => `The shop asks ${s.value} dollars for the ${s.key}.`,
      (s) => `Whoever wants the ${s.key} must pay $${s.value} at the counter.`,
      (s) => `At $${s.value}, the ${s.key} sits on the top shelf.`,
    ],
  ),
  ...defineFrames(
    'multi_needle',
    'tense',
    [(s) => `The ${s.key} used to cost $${s.value}.`],
    [(s) => `Last winter the shop asked ${s.value} dollars for the ${s.key}.`],
  ),
  ...defineFrames(
    'multi_needle',
    'negation',
    [(s) => `The ${s.key} does not cost $${s.value}.`],
    [(s) => `Not once was the ${s.key} priced at ${s.value} dollars.`],
  ),
  ...defineFrames(
    'multi_needle',
    'hypothetical',
    [(s) => `If the sale were on, the ${s.key} would cost $${s.value}.`],
    [(s) => `Were the supplier to raise prices, the ${s.key} would go for ${s.value} dollars.`],
  ),
  ...defineFrames(
    'multi_needle',
    'reported',
    [(s) => `Some say the ${s.key} costs $${s.value}.`],
    [(s) => `${s.actor} claimed the ${s.key} went for ${s.value} dollars.`],
  ),
  ...defineFrames(
    'multi_needle',
    'correction',
    [(s) => `The ${s.key} was marked at $${s.value}, or so it was believed until the new tags arrived.`],
    [(s) => `A misprinted tag put the ${s.key} at ${s.value} dollars until ${s.actor} fixed it.`],
  ),
];
