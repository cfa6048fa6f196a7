import { segmentsText, type Segment } from './prompt';

/** The prompt part of a conversation: every segment before the first trained one. */
function promptPrefix(segments: readonly Segment[]): Segment[] {
  const firstTrained = segments.findIndex((s) => s.trained);
  return firstTrained === -1 ? [...segments] : segments.slice(0, firstTrained);
}

export class PromptDriftError extends Error {
  constructor(
    message: string,
    readonly diff: string,
  ) {
    super(`${message}\n${diff}`);
    this.name = 'PromptDriftError';
  }
}

/** A line diff around the first difference: enough to see which part of the prompt drifted. */
function describeDifference(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  let first = 0;
  while (first < a.length && first < b.length && a[first] === b[first]) first++;
  let lastA = a.length - 1;
  let lastB = b.length - 1;
  while (lastA >= first && lastB >= first && a[lastA] === b[lastB]) {
    lastA--;
    lastB--;
  }
  const from = Math.max(0, first - 2);
  const lines = [`@@ line ${first + 1} @@`];
  for (let i = from; i < first; i++) lines.push(`  ${a[i]}`);
  for (let i = first; i <= lastA; i++) lines.push(`- ${a[i]}`);
  for (let i = first; i <= lastB; i++) lines.push(`+ ${b[i]}`);
  return lines.join('\n');
}

/**
 * Stops a training run whose SFT examples and rollout prompts have different shapes. Both are rendered for
 * the same task; their prompt parts (everything the model is conditioned on before its first token) must be
 * identical. Throws PromptDriftError with a diff ("-" SFT, "+" rollout) otherwise.
 */
export function preflightPromptShapes(sftExample: readonly Segment[], rolloutPrompt: readonly Segment[]): void {
  const sft = promptPrefix(sftExample);
  const rollout = promptPrefix(rolloutPrompt);
  if (!sftExample.some((s) => s.trained)) {
    throw new PromptDriftError('preflight: the SFT example has no trained tokens', segmentsText(sft));
  }
  const sftText = segmentsText(sft);
  const rolloutText = segmentsText(rollout);
  if (sftText !== rolloutText) {
    throw new PromptDriftError(
      'preflight: the SFT example and the rollout prompt differ for the same task (- SFT, + rollout)',
      describeDifference(sftText, rolloutText),
    );
  }
}
