import type { TaskType } from '@fathom/contracts';
import { COUNTING_STRATEGIES } from './counting';
import { MULTI_HOP_STRATEGIES } from './multi-hop';
import { MULTI_NEEDLE_STRATEGIES } from './multi-needle';
import { lastWordOf, readMentions, searchQuestion } from './read';
import type { TeacherStrategy } from './types';

/** Every teacher strategy, per task type, in a fixed order (the order mix draws walk). */
export const STRATEGIES_BY_TYPE: { readonly [T in TaskType]: readonly TeacherStrategy[] } = {
  niah: [
    readMentions('niah', "llm() reads the object's grep'd sentences, window by window, with the question"),
    searchQuestion('niah', 'llm() reads the sentences search(question) finds, window by window; nothing copied'),
    lastWordOf(
      'niah',
      'first',
      'last word of the first sentence naming the object; fooled by distractors placed first',
    ),
  ],
  extractive: [
    readMentions('extractive', "llm() reads the agreement's grep'd sentences, window by window, with the question"),
    searchQuestion('extractive', 'llm() reads the sentences search(question) finds, window by window; nothing copied'),
    lastWordOf('extractive', 'first', 'last word of the first sentence naming the agreement; fooled by near misses'),
  ],
  multi_needle: MULTI_NEEDLE_STRATEGIES,
  counting: COUNTING_STRATEGIES,
  tracking: [
    readMentions('tracking', "llm() reads every grep'd event of the object together and gives its final place"),
    searchQuestion('tracking', 'llm() reads the sentences search(question) finds, in document order; nothing copied'),
    lastWordOf(
      'tracking',
      'last',
      'last word of the last sentence naming the object; fooled by undone or hypothetical moves',
    ),
  ],
  multi_hop: MULTI_HOP_STRATEGIES,
};

export const TEACHER_STRATEGIES: readonly TeacherStrategy[] = Object.values(STRATEGIES_BY_TYPE).flat();

export function findStrategy(name: string): TeacherStrategy | undefined {
  return TEACHER_STRATEGIES.find((s) => s.name === name);
}

export { ITEM_LIST } from './multi-needle';
export { playCells, type TeacherMove, type TeacherStrategy, type TeacherView } from './types';
