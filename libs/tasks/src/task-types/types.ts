import type { Split, TaskType } from '@fathom/contracts';
import type { Rng } from '../rng';

/** A sentence the task builder wants placed in the document at a random depth. */
export interface Insert {
  text: string;
  /** True for sentences the answer depends on (reported in `needle_positions`); false for distractors. */
  needle: boolean;
}

/** Everything about a task except its document. */
export interface TaskDraft {
  question: string;
  answer: string;
  aliases: string[];
  inserts: Insert[];
  /** Variant tags present, in the builder's declared order. */
  variants: string[];
}

/** Probability, per variant name, that a task of one type carries that variant. */
export type VariantRates = Readonly<Record<string, number>>;

/** One task type: its variant names with default rates, and a deterministic builder. */
export interface TaskTypeBuilder {
  readonly type: TaskType;
  readonly defaultRates: VariantRates;
  /** Draws keys for `split` only. Must consume `rng` in a fixed order so the same seed gives the same draft. */
  build(rng: Rng, split: Split, rates: VariantRates): TaskDraft;
}

export function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Regular English plural, enough for the generator's nouns. */
export function plural(noun: string): string {
  if (/(s|x|z|ch|sh)$/.test(noun)) return `${noun}es`;
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`;
  return `${noun}s`;
}

/** "a lamp", "an easel". */
export function withArticle(noun: string, capital = false): string {
  const article = /^[aeiou]/.test(noun) ? 'an' : 'a';
  return `${capital ? capitalise(article) : article} ${noun}`;
}

/** Pushes `count` distractors, each rendered by a randomly chosen template. */
export function pushDistractors(inserts: Insert[], rng: Rng, count: number, render: (rng: Rng) => string): void {
  for (let i = 0; i < count; i++) inserts.push({ text: render(rng), needle: false });
}
