import { SUB_QUESTIONS } from '@fathom/tasks';
import {
  lit,
  readerFunction,
  searchAndReadLines,
  sentencesWith,
  templateExpression,
  wholeWordRegExp,
  type CodeStyle,
} from '../code';
import { QUESTION_ONLY_NAMES, trainQuestionOn, wholeWindows } from './read';
import { playCells, type TeacherStrategy, type TeacherView } from './types';

/**
 * `multi_needle`: the total price of several items. Each item's price is read by llm() from the item's own
 * sentences; the sum is always computed by code.
 */

const NUMBER = `.replace(/[^\\d.]/g, '')`;

/**
 * The price question of the first item as a template over the item, e.g. "What does the {0} cost?". The oracle
 * reader (like any reader) takes every phrasing of a relation with any key, so one template asks for every item.
 */
const priceTemplate = (view: TeacherView): string => view.subquestions[0].split(view.keys[0]).join('{0}');

function sumCell(view: TeacherView, style: CodeStyle): string {
  const { item, total, reader } = style;
  const price = `Number(${reader}(${templateExpression(priceTemplate(view), [item])}, ${item})${NUMBER})`;
  const items = `[${view.keys.map(lit).join(', ')}]`;
  const sum = style.forLoop
    ? [`let ${total} = 0;`, `for (const ${item} of ${items}) ${total} += ${price};`]
    : [`const ${total} = ${items}.map((${item}) => ${price}).reduce((s, x) => s + x, 0);`];
  return [readerFunction(style), ...sum, `answer(${total});`].join('\n');
}

/** The first number in the first sentence naming each item, summed: fooled by old, negated and rumoured prices. */
function firstNumberCell(view: TeacherView, style: CodeStyle): string {
  const { item, total, hits } = style;
  const search = sentencesWith(
    { ...style, search: style.search === 'grep_word' ? 'grep' : style.search },
    {
      variable: item,
    },
  );
  return [
    `let ${total} = 0;`,
    `for (const ${item} of [${view.keys.map(lit).join(', ')}]) {`,
    `  const ${hits} = ${search};`,
    `  const m = ${hits}.length ? ${hits}[0].match(/\\d[\\d,]*/) : null;`,
    `  if (m) ${total} += Number(m[0].replace(/,/g, ''));`,
    `}`,
    `answer(${total});`,
  ].join('\n');
}

/** The item list of every multi_needle phrasing, "the A, the B and the C" (and what follows the last item). */
export const ITEM_LIST = /(?:\bthe (?:(?!\bthe )[^,])+?, )*\bthe (?:(?!\bthe )[^,])+? and the [^,?.]+/;

/**
 * The question-only sum: the item list is taken from the question at run time — every phrasing names the items as
 * "the A, the B and the C", so a pattern finds the list, and words after the last item ("… cost altogether") are
 * dropped until the last item is a whole phrase of the document; then each item's sentences, found by `search(item)`,
 * are read window by window with a train-family price question built on the item, and code sums the prices. Names and
 * loop are fixed, as in every question-only program, and windows are whole (`WHOLE_WINDOWS`), as tracking's. The list
 * is not printed, so the second turn follows "(no output)" with or without a list, as multi_hop's follows its first.
 *
 * When the question names no item list (a one-key question in a wording the policy took for a multi_needle one), the
 * program backs off to the one-key program's read, as the multi_hop program does when it reads no owner: its one
 * "item" is the question, whose `search(question)` windows it reads with the question and answers. The back-off is
 * in the same loop, not a branch after it, because the byte-level root writes a turn of at most `maxTokensPerTurn`
 * (512) bytes (measured: a branch after the loop made the turn 600 bytes, cut off, and every multi_needle episode
 * ended without an answer).
 */
function itemsFromQuestionCells(style: CodeStyle): string[] {
  const read: CodeStyle = { ...wholeWindows(style), ...QUESTION_ONLY_NAMES, value: 'reply' };

  const items = [
    `const listed = question.match(/${ITEM_LIST.source}/);`,
    'const items = listed ? listed[0].split(/, | and /).map((s) => s.slice(4)) : [];',
    "let last = items.pop() || '';",
    `while (last.includes(' ') && !${wholeWordRegExp('last')}.test(ctx)) last = last.slice(0, last.lastIndexOf(' '));`,
    'if (last) items.push(last);',
  ];
  const price = trainQuestionOn(SUB_QUESTIONS.price, style, 'item');
  const sum = [
    'let total = 0;',
    'for (const item of listed ? items : [question]) {',
    ...searchAndReadLines(read, 'item', `listed ? ${price} : question`).map((l) => `  ${l}`),
    `  total = listed ? total + Number(reply${NUMBER}) : reply;`,
    '}',
    'answer(total);',
  ];
  return [items.join('\n'), sum.join('\n')];
}

export const MULTI_NEEDLE_STRATEGIES: readonly TeacherStrategy[] = [
  {
    name: 'multi_needle.read_per_item',
    type: 'multi_needle',
    robust: true,
    usesLlm: true,
    summary: "llm() reads each item's price from the item's grep'd sentences; code sums the prices",
    next: (view, style, obs) => playCells([sumCell(view, style)], obs),
  },
  {
    name: 'multi_needle.search_question',
    type: 'multi_needle',
    robust: true,
    usesLlm: true,
    summary:
      "the item list taken from the question at run time; llm() reads each item's price; code sums; nothing copied",
    next: (_view, style, obs) => playCells(itemsFromQuestionCells(style), obs),
  },
  {
    name: 'multi_needle.first_number',
    type: 'multi_needle',
    robust: false,
    usesLlm: false,
    summary: 'the first number in the first sentence naming each item, summed; fooled by near misses placed first',
    next: (view, style, obs) => playCells([firstNumberCell(view, style)], obs),
  },
];
