/**
 * Naive strategies a policy might try first. The dataset is built so that each is right only part of the time,
 * which is the headroom reinforcement learning needs. Each reads only question and context.
 */

/** Colour words a naive reader would recognise (written here, not imported). */
const COLOUR_WORDS =
  'red blue green yellow orange purple pink brown black white grey gray silver gold teal violet crimson amber ivory ' +
  'indigo maroon turquoise beige lavender scarlet navy cream bronze copper emerald magenta';
const COLOUR_RE = new RegExp(`\\b(${COLOUR_WORDS.split(' ').join('|')})\\b`, 'i');

/** niah: the first sentence that mentions the object (plain substring), and the first colour in it. */
export function naiveNiah(question: string, context: string): string | undefined {
  const object = /^What colour is the (.+)\?$/.exec(question)![1];
  for (const sentence of context.split(/(?<=\.)\s+/)) {
    if (!sentence.toLowerCase().includes(object)) continue;
    const colour = COLOUR_RE.exec(sentence);
    if (colour) return colour[1].toLowerCase();
  }
  return undefined;
}

/** extractive: the first regex hit of "<name> … in <City>", ignoring the year. */
export function naiveExtractive(question: string, context: string): string | undefined {
  const name = /^In which city was the \d+ (.+) signed\?$/.exec(question)![1];
  return new RegExp(`${name}[^.]*?\\bin ([A-Z][a-z]+)`).exec(context)?.[1];
}

/** multi_needle: for each item the first number after its first mention in a sentence, summed. */
export function naiveMultiNeedle(question: string, context: string): string | undefined {
  const list = /^What is the total price, in dollars, of (.+)\?$/.exec(question)![1];
  let total = 0;
  for (const item of list.split(/, | and /).map((p) => p.replace(/^the /, ''))) {
    const hit = new RegExp(`${item}[^.]*?\\$?(\\d[\\d,]*)`, 'i').exec(context);
    if (!hit) return undefined;
    total += Number(hit[1].replace(/,/g, ''));
  }
  return String(total);
}

/** counting: a plain, case-sensitive substring count. */
export function naiveCounting(question: string, context: string): string {
  const word = /^How many times does the word "([^"]+)"/.exec(question)![1];
  return String(context.split(word).length - 1);
}
