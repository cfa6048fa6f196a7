import type { EpisodeStatus, StopReason } from '@fathom/contracts';
import type { StepErrorCode } from '@fathom/sandbox';

/** How an episode ended: its status and stop reason, or `infra` (the machinery failed, not the policy). */
export type EpisodeEnd = { status: EpisodeStatus; stopReason: StopReason } | { infra: string };

/** What one action left that decides whether the episode goes on (a code step's result, or an answer). */
export interface ActionOutcome {
  /** The answer the action gave (an answer action, or code that called `answer()`), or null. */
  answer: string | null;
  error: { code: StepErrorCode; message: string } | null;
  /** Whether the REPL can run another step. */
  alive: boolean;
}

/**
 * THE rule of when an episode ends, asked after each action by every driver of episodes — the episode engine
 * (`EpisodeRunner`), the env-service's OpenEnv sessions and the SFT teacher: an answer ends it (`ok`); a REPL that
 * cannot go on ends it as its error classifies (`classifyFatalStep`); the action that reaches `maxTurns` ends it
 * (`truncated`, `turn_limit`); otherwise it goes on (null). `turns` counts the actions taken, this one included.
 */
export function episodeEnd(outcome: ActionOutcome, turns: number, maxTurns: number): EpisodeEnd | null {
  if (outcome.answer !== null) return { status: 'ok', stopReason: 'answer' };
  if (!outcome.alive) {
    if (outcome.error === null) return { status: 'sandbox_error', stopReason: 'sandbox_fatal' };
    const fatal = classifyFatalStep(outcome.error.code);
    return fatal === 'infra' ? { infra: `${outcome.error.code}: ${outcome.error.message}` } : fatal;
  }
  if (turns >= maxTurns) return { status: 'truncated', stopReason: 'turn_limit' };
  return null;
}

/** How an episode-ending sandbox error classifies the rollout (the one place this mapping lives). */
function classifyFatalStep(code: StepErrorCode): { status: EpisodeStatus; stopReason: StopReason } | 'infra' {
  switch (code) {
    case 'timeout':
    case 'cpu_limit':
    case 'episode_cpu_limit':
      return { status: 'timeout', stopReason: 'sandbox_timeout' };
    case 'memory_limit':
      return { status: 'sandbox_error', stopReason: 'sandbox_fatal' };
    case 'step_limit':
      return { status: 'truncated', stopReason: 'turn_limit' };
    case 'worker_crashed':
    case 'closed':
      return 'infra';
    // Not episode-ending by the sandbox's rules; should one ever end an episode, it is still the policy's code.
    case 'syntax':
    case 'runtime':
    case 'llm_limit':
      return { status: 'sandbox_error', stopReason: 'sandbox_fatal' };
  }
}
