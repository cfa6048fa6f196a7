import { parsePrice, readPrice } from '../reader';
import { code, sumThenAnswer, type TeacherStrategy } from './types';

/**
 * `multi_needle`: "What is the total price, in dollars, of the lamp, the drill and the globe?". Every strategy
 * looks, then adds the prices it read with code (`print(1250 + 300)`), then answers what that printed.
 */

const list = (items: readonly string[]): string => `[${items.map((i) => `'${i}'`).join(', ')}]`;

/** Prices from lines "<item> <price>"; items whose line holds no price are left out. */
function pricesByLine(items: readonly string[], observation: string): number[] {
  const lines = observation.split('\n');
  return items.flatMap((item) => {
    const line = lines.find((l) => l.startsWith(`${item} `));
    const price = line === undefined ? null : parsePrice(line.slice(item.length + 1));
    return price === null ? [] : [price];
  });
}

/** Careful reading of every item's price; all or nothing. */
function readAll(items: readonly string[], observation: string): number[] {
  const prices = items.map((item) => readPrice(item, observation));
  return prices.every((p) => p !== null) ? prices : [];
}

export const MULTI_NEEDLE_STRATEGIES: readonly TeacherStrategy<'multi_needle'>[] = [
  {
    name: 'multi_needle.read_mentions',
    type: 'multi_needle',
    robust: true,
    usesLlm: false,
    summary: 'prints every sentence naming an item; reads each current price, sums with code',
    next: (q, obs) =>
      obs.length === 0
        ? code(String.raw`for (const s of ctx.match(/[^.]*\b(?:${q.items.join('|')})\b[^.]*\./g)) print(s.trim())`)
        : sumThenAnswer(readAll(q.items, obs[0]), obs, 1),
  },
  {
    name: 'multi_needle.llm_per_item',
    type: 'multi_needle',
    robust: true,
    usesLlm: true,
    summary: 'one llm() call per item on the sentences naming it; sums the answers with code',
    next: (q, obs) =>
      obs.length === 0
        ? code(
            `for (const w of ${list(q.items)}) print(w, llm('What is the price of the ' + w + '?', ctx.match(RegExp('[^.]*' + w + '[^.]*\\\\.', 'g')).join('')))`,
          )
        : sumThenAnswer(pricesByLine(q.items, obs[0]), obs, 1),
  },
  {
    name: 'multi_needle.first_number',
    type: 'multi_needle',
    robust: false,
    usesLlm: false,
    summary: 'for each item the first number after its first mention in a sentence; fooled by near misses and decoys',
    next: (q, obs) =>
      obs.length === 0
        ? code(`for (const w of ${list(q.items)}) print(w, (ctx.match(RegExp(w + '[^.\\\\d]*([\\\\d,]+)')) || [])[1])`)
        : sumThenAnswer(pricesByLine(q.items, obs[0]), obs, 1),
  },
];
