import type { Family, Split, SubQuestion, TaskMeta, TaskType } from '@fathom/contracts';
import { plainAnswer } from '../answers';
import {
  distractorInventable,
  framesOf,
  inventable,
  inventedDistractor,
  inventedSentence,
  phrasingsOf,
  type Frame,
  type Phrasing,
  type Slots,
} from '../frames';
import type { Rng } from '@fathom/contracts';
import { FILLER } from '../vocab';

/** A sentence the task builder wants placed in the document. */
export interface Insert {
  text: string;
  /** True for sentences the answer depends on (reported in `needle_positions`); false for distractors. */
  needle: boolean;
  /** The kind of frame it was written with ("needle", "negation", "move", …): what kind of distractor it is. */
  kind: string;
  /**
   * Inserts with a sequence number appear in the document in increasing sequence order (events of a tracked object);
   * the others at independent random depths.
   */
  sequence?: number;
}

/** Everything about a task except its document. */
export interface TaskDraft {
  question: string;
  answer: string;
  aliases: string[];
  inserts: Insert[];
  /** Variant tags present, in the builder's declared order. */
  variants: string[];
  meta: TaskMeta;
}

/** Probability, per variant name, that a task of one type carries that variant. */
export type VariantRates = Readonly<Record<string, number>>;

/** What a builder is asked for: the split (which entities), the family (which phrasings and frames), the rates. */
export interface BuildContext {
  split: Split;
  family: Family;
  rates: VariantRates;
  /** Which sentences are written with invented frames instead of written ones. Default none. */
  invent?: Invention;
}

/**
 * Which sentences a draft writes with invented frames: `frames`, every sentence that ties one key to one value
 * (`INVENTED_KINDS`: needles, owners, homes, decoys written with them; the reader curriculum's `inventedShare`);
 * `distractors`, every distractor whose meaning cue can be invented (`INVENTED_DISTRACTOR_KINDS`: negation,
 * hypothetical, correction, tense; `inventedDistractorShare`).
 */
export interface Invention {
  frames?: boolean;
  distractors?: boolean;
}

/** One task type: its variant names with default rates, and a deterministic builder. */
export interface TaskTypeBuilder {
  readonly type: TaskType;
  readonly defaultRates: VariantRates;
  /** Draws entities of `ctx.split` only. Consumes `rng` in a fixed order so the same seed gives the same draft. */
  build(rng: Rng, ctx: BuildContext): TaskDraft;
}

/**
 * Collects what a builder writes: inserts, frame ids and variant tags. Frames are always drawn from the builder's
 * family, so a task's needles and distractors share the family of its question.
 */
export class DraftWriter {
  readonly inserts: Insert[] = [];
  private readonly frameIds = new Set<string>();
  private readonly variantTags = new Set<string>();

  constructor(
    readonly rng: Rng,
    readonly type: TaskType,
    readonly family: Family,
    private readonly invention: Invention = {},
  ) {}

  frame(kind: string): Frame {
    const frame = this.rng.pick(framesOf(this.type, kind, this.family));
    this.frameIds.add(frame.id);
    return frame;
  }

  /** Renders a frame of `kind` with `slots` (actor defaults to a filler name) and adds it; returns the sentence. */
  write(kind: string, slots: Partial<Slots> & { key: string }, needle: boolean, sequence?: number): string {
    const text = this.render(kind, slots);
    this.inserts.push(sequence === undefined ? { text, needle, kind } : { text, needle, kind, sequence });
    return text;
  }

  /** A sentence of `kind`: invented where `invention` asks for it and the kind allows it, a written frame otherwise. */
  private render(kind: string, slots: Partial<Slots> & { key: string }): string {
    const invent =
      this.invention.frames && inventable(this.type, kind)
        ? inventedSentence
        : this.invention.distractors && distractorInventable(this.type, kind)
          ? inventedDistractor
          : null;
    if (invent === null)
      return this.frame(kind).render({ value: '', other: '', actor: this.rng.pick(FILLER.names), ...slots });
    this.frameIds.add(`${this.type}.${kind}.invented`);
    return invent(this.rng, this.type, kind, { value: '', ...slots });
  }

  tag(variant: string): void {
    this.variantTags.add(variant);
  }

  /** For each of `kinds` in order, with probability `rates[kind]`: tags it as a variant and runs `add(kind)`. */
  maybe(kinds: readonly string[], rates: VariantRates, add: (kind: string) => void): void {
    for (const kind of kinds)
      if (this.rng.chance(rates[kind])) {
        this.tag(kind);
        add(kind);
      }
  }

  /** Variant tags in the order of `declared` (the builder's rate keys). */
  variants(declared: VariantRates): string[] {
    return Object.keys(declared).filter((v) => this.variantTags.has(v));
  }

  frames(): string[] {
    return [...this.frameIds].sort();
  }
}

/** A drawer of values unlike `taken` and unlike every value it has drawn (`draw` gets the values to avoid). */
export function distinct(draw: (avoid: readonly string[]) => string, taken: readonly string[]): () => string {
  const used = [...taken];
  return () => {
    const value = draw(used);
    used.push(value);
    return value;
  };
}

/**
 * The draft of a one-fact task (niah, extractive): the question in a phrasing of the writer's family drawn from
 * `questions`, answered by `value`, with `needle` its only evidence.
 */
export function singleFactDraft(
  w: DraftWriter,
  questions: readonly Phrasing[],
  fact: { key: string; value: string; needle: string },
  declared: VariantRates,
): TaskDraft {
  const phrasing = w.rng.pick(phrasingsOf(questions, w.family));
  const question = phrasing.render(fact.key);
  const sub = { question, evidence: [fact.needle], answer: fact.value };
  return {
    question,
    ...plainAnswer(fact.value),
    inserts: w.inserts,
    variants: w.variants(declared),
    meta: meta(fact.key, [fact.key], w.family, phrasing.id, w.frames(), [sub]),
  };
}

export function meta(
  key: string,
  keys: string[],
  family: Family,
  template: string,
  frames: string[],
  subquestions: SubQuestion[],
): TaskMeta {
  return { key, keys, phrasing: { family, template }, frames, subquestions };
}
