/**
 * The teacher's careful reading of text it has seen (an observation or an llm() chunk). It accepts exactly the
 * statements docs/DATASETS.md lists under "What a careful reader accepts" and nothing else, so near misses
 * ("The mirror used to be gold."), decoys ("The mirror stand is red.") and other agreements never count.
 * Each reader returns the one value the text states, or null when it states none or several.
 */

/** A sentence end: full stop followed by whitespace or the end of the text. */
const END = String.raw`\.(?=\s|$)`;
/** A sentence start: the start of the text or whitespace. */
const START = String.raw`(?:^|(?<=\s))`;
const PRICE = String.raw`(\d{1,3}(?:,\d{3})+|\d+)`;
const CITY = '([A-Z][a-z]+)';

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function single(text: string, patterns: readonly string[], fold: (value: string) => string): string | null {
  const values = new Set<string>();
  for (const source of patterns) for (const m of text.matchAll(new RegExp(source, 'g'))) values.add(fold(m[1]));
  return values.size === 1 ? [...values][0] : null;
}

/** The colour the text gives `object` now ("The mirror is silver.", "Silver is the colour of the mirror."). */
export function readColour(object: string, text: string): string | null {
  const o = escape(object);
  return single(
    text,
    [
      String.raw`\b[Tt]he ${o} is ([a-z]+)${END}`,
      String.raw`${START}([A-Z][a-z]+) is the colour of the ${o}${END}`,
      String.raw`\bhas painted the ${o} ([a-z]+)${END}`,
    ],
    (c) => c.toLowerCase(),
  );
}

/** The city where the text says `key` ("1987 Harbour Accord") was signed. */
export function readCity(key: string, text: string): string | null {
  const k = escape(key);
  return single(
    text,
    [
      String.raw`\b[Tt]he ${k} was signed in ${CITY}${END}`,
      String.raw`\bsigned the ${k} in ${CITY}${END}`,
      String.raw`${START}It was in ${CITY} that the ${k} was signed${END}`,
      String.raw`${START}${CITY} hosted the signing of the ${k}${END}`,
    ],
    (c) => c,
  );
}

/** The current price of `item` in whole dollars, by the text. */
export function readPrice(item: string, text: string): number | null {
  const i = escape(item);
  const price = single(
    text,
    [
      String.raw`\b[Tt]he ${i} costs \$${PRICE}${END}`,
      String.raw`${START}An? ${i} sells for ${PRICE} dollars${END}`,
      String.raw`${START}For \$${PRICE} you can buy the ${i}${END}`,
      String.raw`\b[Tt]he price of the ${i} is \$${PRICE}${END}`,
    ],
    (p) => p.replace(/,/g, ''),
  );
  return price === null ? null : Number(price);
}

/** Whole-word occurrences of `word` in any letter case (plurals and longer words do not count). */
export function countWholeWord(word: string, text: string): number {
  return (text.match(new RegExp(String.raw`\b${escape(word)}\b`, 'gi')) ?? []).length;
}

/** A printed price ("1,250", "$1,250", "1250") as a number, or null. */
export function parsePrice(text: string): number | null {
  const m = /^\$?(\d{1,3}(?:,\d{3})+|\d+)$/.exec(text.trim());
  return m ? Number(m[1].replace(/,/g, '')) : null;
}
