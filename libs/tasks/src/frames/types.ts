import type { Family, TaskType } from '@fathom/contracts';

/**
 * Text templates of the generator. A FRAME renders one sentence of the document (a needle or a distractor); a
 * PHRASING renders a question. Both come in two families, `train` and `heldout`, that never share a template: train
 * and eval tasks use train families only, and half the heldout tasks use heldout families, so a program or a policy
 * that memorised the train wording meets text it has never seen.
 */

/** The slots a frame fills. Which entity or value each slot holds is documented per type in docs/DATASETS.md. */
export interface Slots {
  /** The entity the sentence is about, verbatim (no article). */
  key: string;
  /** The value the sentence states (the gold value in a needle, a wrong one in a distractor). */
  value: string;
  /** A second value or entity (a person in hand-overs and hypotheticals). */
  other: string;
  /** Whoever acts in the sentence (a person's name). */
  actor: string;
}

export type Render = (s: Slots) => string;

export interface Frame {
  /** "<type>.<kind>.<t|h><n>", e.g. "niah.needle.t2", "tracking.undone.h1". */
  id: string;
  type: TaskType;
  /** What the sentence does: "needle" (states the fact) or the distractor kind ("negation", "reported", ...). */
  kind: string;
  family: Family;
  render: Render;
}

export interface Phrasing {
  /** "<type>.q.<t|h><n>" for task questions, "<type>.<relation>.<t|h><n>" for sub-questions. */
  id: string;
  family: Family;
  render: (key: string) => string;
}

export function defineFrames(type: TaskType, kind: string, train: Render[], heldout: Render[]): Frame[] {
  return [
    ...train.map((render, i) => ({ id: `${type}.${kind}.t${i + 1}`, type, kind, family: 'train' as const, render })),
    ...heldout.map((render, i) => ({
      id: `${type}.${kind}.h${i + 1}`,
      type,
      kind,
      family: 'heldout' as const,
      render,
    })),
  ];
}

export function definePhrasings(
  prefix: string,
  train: ((key: string) => string)[],
  heldout: ((key: string) => string)[],
): Phrasing[] {
  return [
    ...train.map((render, i) => ({ id: `${prefix}.t${i + 1}`, family: 'train' as const, render })),
    ...heldout.map((render, i) => ({ id: `${prefix}.h${i + 1}`, family: 'heldout' as const, render })),
  ];
}
