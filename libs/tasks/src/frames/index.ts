import type { Family, TaskType } from '@fathom/contracts';
import { COUNTING_FRAMES, COUNTING_QUESTIONS } from './counting';
import { EXTRACTIVE_FRAMES, EXTRACTIVE_QUESTIONS } from './extractive';
import {
  MULTI_HOP_FRAMES,
  MULTI_HOP_HOME_QUESTIONS,
  MULTI_HOP_OWNER_QUESTIONS,
  MULTI_HOP_QUESTIONS,
} from './multi-hop';
import { MULTI_NEEDLE_FRAMES, MULTI_NEEDLE_PRICE_QUESTIONS, MULTI_NEEDLE_QUESTIONS } from './multi-needle';
import { NIAH_FRAMES, NIAH_QUESTIONS } from './niah';
import { TRACKING_FRAMES, TRACKING_QUESTIONS } from './tracking';
import type { Frame, Phrasing } from './types';

/** Every task question phrasing, per type. */
export const QUESTIONS: Readonly<Record<TaskType, readonly Phrasing[]>> = {
  niah: NIAH_QUESTIONS,
  extractive: EXTRACTIVE_QUESTIONS,
  multi_needle: MULTI_NEEDLE_QUESTIONS,
  counting: COUNTING_QUESTIONS,
  tracking: TRACKING_QUESTIONS,
  multi_hop: MULTI_HOP_QUESTIONS,
};

/** Sub-question phrasings of the facts a task is built from, by relation. */
export const SUB_QUESTIONS = {
  price: MULTI_NEEDLE_PRICE_QUESTIONS,
  owner: MULTI_HOP_OWNER_QUESTIONS,
  home: MULTI_HOP_HOME_QUESTIONS,
} as const;

/** Every needle and distractor frame, per type. */
export const FRAMES: Readonly<Record<TaskType, readonly Frame[]>> = {
  niah: NIAH_FRAMES,
  extractive: EXTRACTIVE_FRAMES,
  multi_needle: MULTI_NEEDLE_FRAMES,
  counting: COUNTING_FRAMES,
  tracking: TRACKING_FRAMES,
  multi_hop: MULTI_HOP_FRAMES,
};

/** The frames of one type, kind and family (throws on a combination that has none: a bug in the tables). */
export function framesOf(type: TaskType, kind: string, family: Family): readonly Frame[] {
  const found = FRAMES[type].filter((f) => f.kind === kind && f.family === family);
  if (found.length === 0) throw new Error(`no ${family} frame of kind "${kind}" for ${type}`);
  return found;
}

export function phrasingsOf(phrasings: readonly Phrasing[], family: Family): readonly Phrasing[] {
  return phrasings.filter((p) => p.family === family);
}

export type { Frame, Phrasing, Render, Slots } from './types';
export {
  INVENTED_DISTRACTOR_KINDS,
  INVENTED_KINDS,
  distractorInventable,
  inventable,
  inventedDistractor,
  inventedQuestion,
  inventedSentence,
} from './invented';
export { COUNTING_FRAMES, COUNTING_QUESTIONS } from './counting';
export { EXTRACTIVE_FRAMES, EXTRACTIVE_QUESTIONS } from './extractive';
export {
  MULTI_HOP_FRAMES,
  MULTI_HOP_HOME_QUESTIONS,
  MULTI_HOP_OWNER_QUESTIONS,
  MULTI_HOP_QUESTIONS,
  OWNER_OF_QUESTION,
} from './multi-hop';
export { MULTI_NEEDLE_FRAMES, MULTI_NEEDLE_PRICE_QUESTIONS, MULTI_NEEDLE_QUESTIONS } from './multi-needle';
export { NIAH_FRAMES, NIAH_QUESTIONS } from './niah';
export { TRACKING_FRAMES, TRACKING_QUESTIONS } from './tracking';
