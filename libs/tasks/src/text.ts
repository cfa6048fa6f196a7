/** Small English helpers shared by frames, builders and answers. */

export function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Regular English plural, enough for the generator's nouns and pseudo-words. */
export function plural(noun: string): string {
  if (/(s|x|z|ch|sh)$/.test(noun)) return `${noun}es`;
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`;
  return `${noun}s`;
}

/** "a lamp", "an easel". */
export function withArticle(noun: string, capital = false): string {
  const article = /^[aeiou]/i.test(noun) ? 'an' : 'a';
  return `${capital ? capitalise(article) : article} ${noun}`;
}

/** "1250" → "1,250". */
export function withThousands(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** "the lamp", "the lamp and the drill", "the lamp, the drill and the globe". */
export function theList(items: readonly string[]): string {
  const named = items.map((i) => `the ${i}`);
  return named.length === 1 ? named[0] : `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}`;
}
