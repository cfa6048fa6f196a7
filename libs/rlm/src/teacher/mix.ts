import type { TaskType } from '@fathom/contracts';
import { TeacherError } from './errors';
import { STRATEGIES_BY_TYPE, TEACHER_STRATEGIES, type TeacherStrategy } from './strategies';

/**
 * How often each strategy writes a task's example. For a task of type T, the robust group of T is chosen with
 * probability `robust` and the naive group otherwise; within the group a strategy is chosen in proportion to
 * its weight. A group whose weights are all 0 gives its share to the other group. Documented in docs/TEACHER.md.
 */
export interface TeacherMix {
  /** Share of examples written by robust strategies, in [0, 1]. */
  robust: number;
  /** Relative weight of each strategy within its group; strategies not listed weigh 1. */
  weights: Readonly<Record<string, number>>;
}

/**
 * The default: 80% robust (the programs to learn), 20% naive (first or last mention without reading, substring
 * counts: one cheap no-llm() program per type where one exists, kept for GRPO to find better than). Every strategy
 * weighs 1 within its group; a type without a naive strategy (multi_hop) is all robust.
 */
export const DEFAULT_TEACHER_MIX: TeacherMix = Object.freeze({
  robust: 0.8,
  weights: Object.freeze({}) as Record<string, number>,
});

function invalid(detail: string): TeacherError {
  return new TeacherError('INVALID_MIX', detail);
}

/** Checks a mix: robust share in [0, 1], known strategy names, finite non-negative weights, no empty type. */
export function validateMix(mix: TeacherMix): TeacherMix {
  if (!(Number.isFinite(mix.robust) && mix.robust >= 0 && mix.robust <= 1))
    throw invalid(`robust must be in [0, 1], got ${mix.robust}`);
  for (const [name, weight] of Object.entries(mix.weights)) {
    if (!TEACHER_STRATEGIES.some((s) => s.name === name))
      throw invalid(`unknown strategy "${name}"; known: ${TEACHER_STRATEGIES.map((s) => s.name).join(', ')}`);
    if (!(Number.isFinite(weight) && weight >= 0)) throw invalid(`weight of ${name} must be >= 0, got ${weight}`);
  }
  for (const type of Object.keys(STRATEGIES_BY_TYPE) as TaskType[]) {
    if (strategyProbabilities(mix, type).every((p) => p.probability === 0))
      throw invalid(`every strategy of ${type} has weight 0`);
  }
  return mix;
}

/**
 * Parses "robust=0.6,niah.llm_window=0,counting.substring=2" onto `base` (default: DEFAULT_TEACHER_MIX):
 * `robust` sets the robust share, a strategy name sets its weight.
 */
export function parseTeacherMix(text: string, base: TeacherMix = DEFAULT_TEACHER_MIX): TeacherMix {
  let robust = base.robust;
  const weights: Record<string, number> = { ...base.weights };
  for (const part of text.split(',').filter((p) => p.trim() !== '')) {
    const [key, value, extra] = part.split('=').map((s) => s.trim());
    const number = Number(value);
    if (extra !== undefined || value === undefined || value === '' || !Number.isFinite(number))
      throw invalid(`entry "${part}" is not name=number`);
    if (key === 'robust') robust = number;
    else weights[key] = number;
  }
  return validateMix({ robust, weights });
}

/** Each strategy of `type` with the probability that the mix picks it (in STRATEGIES_BY_TYPE order). */
export function strategyProbabilities(
  mix: TeacherMix,
  type: TaskType,
): { strategy: TeacherStrategy; probability: number }[] {
  const strategies = STRATEGIES_BY_TYPE[type];
  const weight = (s: TeacherStrategy): number => mix.weights[s.name] ?? 1;
  const total = (robust: boolean): number =>
    strategies.filter((s) => s.robust === robust).reduce((sum, s) => sum + weight(s), 0);
  const robustTotal = total(true);
  const naiveTotal = total(false);
  const robustShare = robustTotal === 0 ? 0 : naiveTotal === 0 ? 1 : mix.robust;
  return strategies.map((strategy) => {
    const groupTotal = strategy.robust ? robustTotal : naiveTotal;
    const share = strategy.robust ? robustShare : 1 - robustShare;
    return { strategy, probability: groupTotal === 0 ? 0 : (share * weight(strategy)) / groupTotal };
  });
}

/**
 * Draws `count` distinct strategies for a task of `type` (fewer if fewer have a non-zero probability),
 * each by its probability among those not yet drawn. `uniform` yields numbers in [0, 1).
 */
export function drawStrategies(
  mix: TeacherMix,
  type: TaskType,
  count: number,
  uniform: () => number,
): TeacherStrategy[] {
  const left = strategyProbabilities(mix, type).filter((p) => p.probability > 0);
  const drawn: TeacherStrategy[] = [];
  while (drawn.length < count && left.length > 0) {
    const total = left.reduce((sum, p) => sum + p.probability, 0);
    let u = uniform() * total;
    let index = left.findIndex((p) => (u -= p.probability) < 0);
    if (index === -1) index = left.length - 1;
    drawn.push(left[index].strategy);
    left.splice(index, 1);
  }
  return drawn;
}
