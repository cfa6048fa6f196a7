import type { RewardConfig } from '@fathom/contracts';
import { RewardError } from '../errors';

export interface TokenBudgetScore {
  score: number;
  /** Tokens spent: root completion plus every `llm()` sub-call (prompt and completion). */
  spent: number;
  /** budget = alpha · context_tokens. */
  budget: number;
}

/**
 * Token budget, penalising tokens spent relative to the context's size.
 *
 *   spent  = tokens.completion + tokens.subcall
 *   budget = alpha · context_tokens
 *   capped_linear: score = max(0, 1 − spent / budget)   (0 once the budget is used up)
 *   exponential:   score = exp(−spent / budget)         (1/e at the budget, decaying smoothly past it)
 *
 * With alpha = 0.2 an episode over a 16K-token document may spend 3.2K tokens; reading the whole
 * document through sub-calls (spent ≥ context) scores 0 under capped_linear.
 */
export function tokenBudgetScore(
  tokens: { completion: number; subcall: number },
  contextTokens: number,
  config: RewardConfig['tokenBudget'],
): TokenBudgetScore {
  const spent = tokens.completion + tokens.subcall;
  const budget = config.alpha * contextTokens;
  let score: number;
  switch (config.variant) {
    case 'capped_linear':
      score = budget > 0 ? Math.max(0, 1 - spent / budget) : spent === 0 ? 1 : 0;
      break;
    case 'exponential':
      score = budget > 0 ? Math.exp(-spent / budget) : spent === 0 ? 1 : 0;
      break;
    default: {
      const unknownVariant: never = config.variant;
      throw new RewardError('INVALID_CONFIG', `unknown token budget variant ${String(unknownVariant)}`);
    }
  }
  return { score: Math.min(1, score), spent, budget };
}
