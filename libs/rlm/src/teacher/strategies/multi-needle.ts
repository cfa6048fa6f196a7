import { lit, readerFunction, sentencesWith, templateExpression, type CodeStyle } from '../code';
import { playCells, type TeacherStrategy, type TeacherView } from './types';

/**
 * `multi_needle`: the total price of several items. Each item's price is read by llm() from the item's own
 * sentences; the sum is always computed by code.
 */

const NUMBER = `.replace(/[^\\d.]/g, '')`;

/**
 * The per-item price questions as one template over the item (`{item}`), or null when the task asks them in
 * different words per item.
 */
function sharedTemplate(view: TeacherView): string | null {
  const templates = view.keys.map((key, i) => (view.subquestions[i] ?? '').split(key).join('{item}'));
  return templates.every((t) => t === templates[0] && t.includes('{item}')) ? templates[0] : null;
}

function sumCell(view: TeacherView, style: CodeStyle): string {
  const { item, total, reader } = style;
  const template = sharedTemplate(view);
  const price = (q: string, key: string): string => `Number(${reader}(${q}, ${key})${NUMBER})`;
  const lines = [readerFunction(style)];
  if (template === null) {
    // Each item with its own question: a list of [item, question] pairs.
    const pairs = view.keys.map((key, i) => `[${lit(key)}, ${lit(view.subquestions[i])}]`).join(', ');
    if (style.forLoop)
      lines.push(
        `let ${total} = 0;`,
        `for (const [${item}, q] of [${pairs}]) ${total} += ${price('q', item)};`,
        `answer(${total});`,
      );
    else
      lines.push(
        `const ${total} = [${pairs}].map(([${item}, q]) => ${price('q', item)}).reduce((s, x) => s + x, 0);`,
        `answer(${total});`,
      );
    return lines.join('\n');
  }
  const items = `[${view.keys.map(lit).join(', ')}]`;
  const q = templateExpression(template.replace('{item}', '{0}'), [item]);
  if (style.forLoop)
    lines.push(
      `let ${total} = 0;`,
      `for (const ${item} of ${items}) ${total} += ${price(q, item)};`,
      `answer(${total});`,
    );
  else
    lines.push(
      `const ${total} = ${items}.map((${item}) => ${price(q, item)}).reduce((s, x) => s + x, 0);`,
      `answer(${total});`,
    );
  return lines.join('\n');
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
    name: 'multi_needle.first_number',
    type: 'multi_needle',
    robust: false,
    usesLlm: false,
    summary: 'the first number in the first sentence naming each item, summed; fooled by near misses placed first',
    next: (view, style, obs) => playCells([firstNumberCell(view, style)], obs),
  },
];
