import type { SandboxEpisode, StepResult } from '@fathom/sandbox';
import { parseCompletion } from './parse';

export type TurnOutcome =
  { kind: 'answer'; answer: string } | { kind: 'code'; code: string; result: StepResult } | { kind: 'none' };

/**
 * Applies one model turn to an episode.
 *
 * Rule when a turn holds both code and an answer: **the answer wins** and no code of that turn runs. The
 * answer is final — nothing the code printed could reach the model any more — so running it would only
 * spend CPU and sub-call budget. A turn with neither (including only non-runnable or blank blocks) is
 * `none`; the episode driver decides whether to nudge the model or end the episode.
 */
export async function applyTurn(episode: Pick<SandboxEpisode, 'run'>, completion: string): Promise<TurnOutcome> {
  const parsed = parseCompletion(completion);
  if (parsed.answer !== null) return { kind: 'answer', answer: parsed.answer };
  if (parsed.code !== null) return { kind: 'code', code: parsed.code, result: await episode.run(parsed.code) };
  return { kind: 'none' };
}
