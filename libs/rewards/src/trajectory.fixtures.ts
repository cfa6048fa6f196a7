import type { LlmCallRecord, RewardTrajectory } from '@fathom/contracts';
import type { RewardTask } from './components/correctness';

/** Fixtures for this library's specs: small tasks and a trajectory builder. Not exported from the library. */

export const MIRROR_TASK: RewardTask = Object.freeze({
  question: 'What color is the mirror?',
  answer: 'red',
  aliases: ['crimson'],
  context_tokens: 16_000,
});

export const COST_TASK: RewardTask = Object.freeze({
  question: 'What is the total cost of the apple, the lemon and the plum?',
  answer: '1200',
  aliases: [],
  context_tokens: 50_000,
});

export const CITY_TASK: RewardTask = Object.freeze({
  question: 'In which city was the 2000 agreement signed?',
  answer: 'Paris',
  aliases: [],
  context_tokens: 8_000,
});

export const SEARCH_TURN =
  "Let me find the mirror.\n```js\nconst i = ctx.indexOf('mirror');\nprint(ctx.slice(i - 200, i + 200));\n```";

export interface TrajectoryOptions {
  /** Turns before the final one. */
  earlier?: string[];
  /** Executed `llm()` calls; null = scored offline (static count). */
  calls?: number | null;
  completionTokens?: number;
  /** Defaults to 440 tokens per executed call. */
  subcallTokens?: number;
}

export function callRecords(count: number): LlmCallRecord[] {
  return Array.from({ length: count }, () => ({ depth: 1, promptTokens: 400, completionTokens: 40, chunkChars: 1600 }));
}

/** A trajectory whose final turn is `finalCompletion`. */
export function trajectory(finalCompletion: string, options: TrajectoryOptions = {}): RewardTrajectory {
  const calls = options.calls === undefined ? 0 : options.calls;
  return {
    turns: [...(options.earlier ?? []), finalCompletion].map((completion) => ({ completion })),
    llmCalls: calls === null ? null : callRecords(calls),
    tokens: {
      completion: options.completionTokens ?? 120,
      subcall: options.subcallTokens ?? (calls ?? 0) * 440,
    },
  };
}
