import type { TaskType } from '@fathom/contracts';
import { COUNTING_STRATEGIES } from './counting';
import { EXTRACTIVE_STRATEGIES } from './extractive';
import { MULTI_NEEDLE_STRATEGIES } from './multi-needle';
import { NIAH_STRATEGIES } from './niah';
import type { AnyTeacherStrategy } from './types';

/** Every teacher strategy, per task type, in a fixed order (the order mix draws walk). */
export const STRATEGIES_BY_TYPE: { readonly [T in TaskType]: readonly AnyTeacherStrategy[] } = {
  niah: NIAH_STRATEGIES,
  extractive: EXTRACTIVE_STRATEGIES,
  multi_needle: MULTI_NEEDLE_STRATEGIES,
  counting: COUNTING_STRATEGIES,
};

export const TEACHER_STRATEGIES: readonly AnyTeacherStrategy[] = Object.values(STRATEGIES_BY_TYPE).flat();

export function findStrategy(name: string): AnyTeacherStrategy | undefined {
  return TEACHER_STRATEGIES.find((s) => s.name === name);
}

export { type AnyTeacherStrategy, type TeacherMove, type TeacherStrategy } from './types';
