/**
 * An independent solver for the tests: it reads only the question and the context text, imports nothing from
 * libs/tasks, and works differently from the library's regex solver — it splits the document into sentences and
 * words and matches the statement forms documented in docs/DATASETS.md as word sequences.
 */

type Slot = { slot: string };
type Pattern = (string | Slot)[];
const X: Slot = { slot: 'x' };

function sentences(context: string): string[][] {
  return context.split(/(?<=\.)\s+/).map((s) =>
    s
      .replace(/\.$/, '')
      .split(' ')
      .filter((w) => w !== ''),
  );
}

/** Matches `pattern` against `words` (whole sentence, or only its end when `tail`); returns the slot's word. */
function match(words: string[], pattern: Pattern, tail: boolean): string | undefined {
  if (words.length < pattern.length || (!tail && words.length !== pattern.length)) return undefined;
  const offset = words.length - pattern.length;
  let bound: string | undefined;
  for (let k = 0; k < pattern.length; k++) {
    const want = pattern[k];
    const word = words[offset + k];
    if (typeof want === 'string') {
      if (word.toLowerCase() !== want.toLowerCase()) return undefined;
    } else bound = word;
  }
  return bound;
}

function collect(context: string, forms: { pattern: Pattern; tail: boolean }[]): string[] {
  const found: string[] = [];
  for (const words of sentences(context)) {
    for (const { pattern, tail } of forms) {
      const value = match(words, pattern, tail);
      if (value !== undefined) found.push(value);
    }
  }
  return [...new Set(found)];
}

function only(values: string[]): string | undefined {
  return values.length === 1 ? values[0] : undefined;
}

export function independentSolve(question: string, context: string): string | undefined {
  const between = (prefix: string, suffix: string): string | undefined =>
    question.startsWith(prefix) && question.includes(suffix, prefix.length)
      ? question.slice(prefix.length, question.indexOf(suffix, prefix.length))
      : undefined;

  const object = between('What colour is the ', '?');
  if (object !== undefined) {
    const colours = collect(context, [
      { pattern: ['the', object, 'is', X], tail: true },
      { pattern: [X, 'is', 'the', 'colour', 'of', 'the', object], tail: false },
      { pattern: ['has', 'painted', 'the', object, X], tail: true },
    ]);
    return only(colours.map((c) => c.toLowerCase()));
  }

  const agreement = between('In which city was the ', ' signed?');
  if (agreement !== undefined) {
    const key = agreement.split(' ');
    return only(
      collect(context, [
        { pattern: ['the', ...key, 'was', 'signed', 'in', X], tail: true },
        { pattern: ['signed', 'the', ...key, 'in', X], tail: true },
        { pattern: ['it', 'was', 'in', X, 'that', 'the', ...key, 'was', 'signed'], tail: false },
        { pattern: [X, 'hosted', 'the', 'signing', 'of', 'the', ...key], tail: false },
      ]),
    );
  }

  const list = between('What is the total price, in dollars, of ', '?');
  if (list !== undefined) {
    const items = list
      .replace(' and ', ', ')
      .split(', ')
      .map((part) => part.slice('the '.length));
    let total = 0;
    for (const item of items) {
      const article = /^[aeiou]/.test(item) ? 'an' : 'a';
      const prices = collect(context, [
        { pattern: ['the', item, 'costs', X], tail: true },
        { pattern: [article, item, 'sells', 'for', X, 'dollars'], tail: false },
        { pattern: ['for', X, 'you', 'can', 'buy', 'the', item], tail: false },
        { pattern: ['the', 'price', 'of', 'the', item, 'is', X], tail: true },
      ]).map((p) => Number(p.replace(/[$,]/g, '')));
      const price = only([...new Set(prices)].map(String));
      if (price === undefined) return undefined;
      total += Number(price);
    }
    return String(total);
  }

  const word = between('How many times does the word "', '"');
  if (word !== undefined) {
    return String(context.split(/[^A-Za-z]+/).filter((w) => w.toLowerCase() === word).length);
  }
  return undefined;
}
