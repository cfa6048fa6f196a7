import type { SubQuestion, Task } from '@fathom/contracts';
import { isCorrect, normalizeAnswer } from '@fathom/rewards';

/**
 * How one leaf `llm()` call scored against the task's structured ground truth (`task.meta.subquestions`):
 * - `correct` / `wrong`: the chunk holds every evidence sentence of a sub-question; its answer is the gold;
 * - `no_evidence`: the chunk holds the evidence of no sub-question (the reader could only say "unknown");
 * - `no_meta`: the task carries no ground truth (a user's dataset), so nothing can be scored.
 */
export type LeafVerdict = 'correct' | 'wrong' | 'no_evidence' | 'no_meta';

export interface LeafScore {
  question: string;
  chunkChars: number;
  answer: string;
  /** The gold sub-answer, when the chunk held a sub-question's evidence. */
  gold: string | null;
  verdict: LeafVerdict;
}

const words = (text: string) => new Set(normalizeAnswer(text).split(' '));

/**
 * The sub-question a leaf call over `chunk` answers: among those whose evidence sentences all lie in the chunk, the
 * one whose question shares the most words with the call's question (a chunk may hold two facts of a multi_hop
 * task; the call's question says which one it asks). Ties keep the solver's order. Null when none fits.
 */
export function subquestionOfLeaf(task: Task, question: string, chunk: string): SubQuestion | null {
  const held = (task.meta?.subquestions ?? []).filter((sub) => sub.evidence.every((e) => chunk.includes(e)));
  if (held.length <= 1) return held[0] ?? null;
  const asked = words(question);
  const overlap = (sub: SubQuestion) => [...words(sub.question)].filter((w) => asked.has(w)).length;
  return held.reduce((best, sub) => (overlap(sub) > overlap(best) ? sub : best));
}

/**
 * Scores a leaf call's answer against the gold sub-answer with the reward's own rule (`isCorrect` of
 * `@fathom/rewards`: answer normalisation, numbers read as numbers).
 */
export function scoreLeaf(task: Task, question: string, chunk: string, answer: string): LeafScore {
  const base = { question, chunkChars: chunk.length, answer };
  if (task.meta === undefined) return { ...base, gold: null, verdict: 'no_meta' };
  const sub = subquestionOfLeaf(task, question, chunk);
  if (sub === null) return { ...base, gold: null, verdict: 'no_evidence' };
  const gold = { question: sub.question, answer: sub.answer, aliases: [], context_tokens: task.context_tokens };
  return { ...base, gold: sub.answer, verdict: isCorrect(answer, gold) ? 'correct' : 'wrong' };
}
