import { withThousands } from './text';

/** Canonical answers and their accepted aliases. Matching is case-insensitive downstream; aliases add spellings. */

function unique(values: string[], canonical: string): string[] {
  return [...new Set(values)].filter((v) => v !== canonical);
}

/** A dollar total: canonical "1250", aliases "1,250", "$1,250", "$1250", "1250 dollars", "1,250 dollars". */
export function priceAnswer(total: number): { answer: string; aliases: string[] } {
  const plain = String(total);
  const grouped = withThousands(total);
  return {
    answer: plain,
    aliases: unique([grouped, `$${grouped}`, `$${plain}`, `${plain} dollars`, `${grouped} dollars`], plain),
  };
}

const SMALL_NUMBERS =
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty'.split(
    ' ',
  );

/** A count: canonical digits, alias the English number word up to twenty. */
export function countAnswer(count: number): { answer: string; aliases: string[] } {
  const word = SMALL_NUMBERS[count];
  return { answer: String(count), aliases: word === undefined ? [] : [word] };
}

/** A generated name or code, canonical as written in the document; case is folded downstream, so no aliases. */
export function plainAnswer(value: string): { answer: string; aliases: string[] } {
  return { answer: value, aliases: [] };
}
