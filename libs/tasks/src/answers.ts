/** Canonical answers and their accepted aliases. Matching is case-insensitive downstream; aliases add spellings. */

/** "1250" → "1,250". */
export function withThousands(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

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

const SMALL_NUMBERS = words(
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen ' +
    'eighteen nineteen twenty',
);
function words(text: string): string[] {
  return text.trim().split(/\s+/);
}

/** A count: canonical digits, alias the English number word up to twenty. */
export function countAnswer(count: number): { answer: string; aliases: string[] } {
  const word = SMALL_NUMBERS[count];
  return { answer: String(count), aliases: word === undefined ? [] : [word] };
}

/** A colour: canonical lower case; aliases the capitalised form, and gray/Gray for grey. */
export function colourAnswer(colour: string): { answer: string; aliases: string[] } {
  const spellings = colour === 'grey' ? ['grey', 'gray'] : [colour];
  const all = spellings.flatMap((s) => [s, s.charAt(0).toUpperCase() + s.slice(1)]);
  return { answer: colour, aliases: unique(all, colour) };
}

/** A city: canonical as written in the document; alias its lower-case spelling. */
export function cityAnswer(city: string): { answer: string; aliases: string[] } {
  return { answer: city, aliases: unique([city.toLowerCase()], city) };
}
