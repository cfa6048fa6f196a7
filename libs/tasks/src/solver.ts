import type { TaskType } from '@fathom/contracts';

/**
 * The reference solver behind `fathom data validate`: it re-derives a generated task's answer from the question and
 * context text alone. It imports nothing from the generator; it knows only the sentence forms documented in
 * docs/DATASETS.md (what a careful reader of the document would accept as a statement of the fact).
 */
export type SolveResult =
  /** The question is not in one of the generator's forms, so there is nothing to check. */
  | { status: 'unrecognised' }
  | { status: 'solved'; type: TaskType; answer: string }
  | { status: 'unsolved'; type: TaskType; reason: string };

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A sentence end: full stop followed by whitespace or the end of the document. */
const END = String.raw`\.(?=\s|$)`;
/** A sentence start: the start of the document or whitespace. */
const START = String.raw`(?:^|(?<=\s))`;
const PRICE = String.raw`(\d{1,3}(?:,\d{3})+|\d+)`;

function captures(context: string, patterns: readonly string[], flags = 'g'): string[] {
  return patterns.flatMap((source) => [...context.matchAll(new RegExp(source, flags))].map((m) => m[1]));
}

/** The one value all statements agree on, or why there is none. */
function single(values: string[], what: string): { value: string } | { reason: string } {
  const distinct = [...new Set(values)];
  if (distinct.length === 1) return { value: distinct[0] };
  if (distinct.length === 0) return { reason: `no sentence states ${what}` };
  return { reason: `conflicting statements of ${what}: ${distinct.join(', ')}` };
}

function solveNiah(object: string, context: string): SolveResult {
  const o = escape(object);
  const found = single(
    captures(context, [
      String.raw`\b[Tt]he ${o} is ([a-z]+)${END}`,
      String.raw`${START}([A-Z][a-z]+) is the colour of the ${o}${END}`,
      String.raw`\bhas painted the ${o} ([a-z]+)${END}`,
    ]).map((c) => c.toLowerCase()),
    `the colour of the ${object}`,
  );
  return 'value' in found
    ? { status: 'solved', type: 'niah', answer: found.value }
    : { status: 'unsolved', type: 'niah', reason: found.reason };
}

function solveExtractive(agreement: string, context: string): SolveResult {
  const k = escape(agreement);
  const city = '([A-Z][a-z]+)';
  const found = single(
    captures(context, [
      String.raw`\b[Tt]he ${k} was signed in ${city}${END}`,
      String.raw`\bsigned the ${k} in ${city}${END}`,
      String.raw`${START}It was in ${city} that the ${k} was signed${END}`,
      String.raw`${START}${city} hosted the signing of the ${k}${END}`,
    ]),
    `where the ${agreement} was signed`,
  );
  return 'value' in found
    ? { status: 'solved', type: 'extractive', answer: found.value }
    : { status: 'unsolved', type: 'extractive', reason: found.reason };
}

function solveMultiNeedle(itemList: string, context: string): SolveResult {
  const items = itemList.split(/, | and /).map((part) => part.replace(/^the /, ''));
  let total = 0;
  for (const item of items) {
    const i = escape(item);
    const found = single(
      captures(context, [
        String.raw`\b[Tt]he ${i} costs \$${PRICE}${END}`,
        String.raw`${START}An? ${i} sells for ${PRICE} dollars${END}`,
        String.raw`${START}For \$${PRICE} you can buy the ${i}${END}`,
        String.raw`\b[Tt]he price of the ${i} is \$${PRICE}${END}`,
      ]).map((p) => p.replace(/,/g, '')),
      `the price of the ${item}`,
    );
    if ('reason' in found) return { status: 'unsolved', type: 'multi_needle', reason: found.reason };
    total += Number(found.value);
  }
  return { status: 'solved', type: 'multi_needle', answer: String(total) };
}

function solveCounting(word: string, context: string): SolveResult {
  const count = context.match(new RegExp(String.raw`\b${escape(word)}\b`, 'gi'))?.length ?? 0;
  return { status: 'solved', type: 'counting', answer: String(count) };
}

/** Re-derives the answer to a question in one of the generator's forms. Pure; never throws. */
export function solveTask(question: string, context: string): SolveResult {
  let m = /^What colour is the (.+)\?$/.exec(question);
  if (m) return solveNiah(m[1], context);
  m = /^In which city was the (\d+ .+) signed\?$/.exec(question);
  if (m) return solveExtractive(m[1], context);
  m = /^What is the total price, in dollars, of (.+)\?$/.exec(question);
  if (m) return solveMultiNeedle(m[1], context);
  m = /^How many times does the word "([^"]+)" appear in the document\?/.exec(question);
  if (m) return solveCounting(m[1], context);
  return { status: 'unrecognised' };
}
