import { parseTaskQuestion } from './question';
import { countWholeWord, readCity, readColour, readPrice } from './reader';

/** What the teacher answers when the chunk does not state what the question asks. */
export const SUBCALL_UNKNOWN = 'unknown';

const PRICE_QUESTION = /^What is the price of the ([A-Za-z0-9][A-Za-z0-9 -]*)\?$/;

/**
 * The teacher's answer to an `llm(question, chunk)` sub-call: a short answer read carefully from the chunk alone
 * (see reader.ts), or "unknown" when the chunk does not state it or the question is not one the teacher reads.
 * It is deterministic and is the llm() handler of every teacher episode, so a strategy that passes a chunk
 * without the fact gets "unknown" back — which is what makes llm() strategies vary in quality. SFT trains the
 * policy on these answers too (`renderSftSubcall`).
 *
 * Questions read: the four task question forms of docs/DATASETS.md, and "What is the price of the <item>?".
 */
export function answerSubcallAsTeacher(question: string, chunk = ''): string {
  const price = PRICE_QUESTION.exec(question.trim());
  if (price) return String(readPrice(price[1], chunk) ?? SUBCALL_UNKNOWN);
  const q = parseTaskQuestion(question);
  if (q === null) return SUBCALL_UNKNOWN;
  switch (q.type) {
    case 'niah':
      return readColour(q.object, chunk) ?? SUBCALL_UNKNOWN;
    case 'extractive':
      return readCity(q.key, chunk) ?? SUBCALL_UNKNOWN;
    case 'multi_needle': {
      const prices = q.items.map((item) => readPrice(item, chunk));
      return prices.every((p) => p !== null) ? String(prices.reduce((a, b) => a + b, 0)) : SUBCALL_UNKNOWN;
    }
    case 'counting':
      return String(countWholeWord(q.word, chunk));
  }
}
