import type { StepResult } from '@fathom/sandbox';

/** What an observation says when a step printed nothing and raised nothing. */
export const NO_OUTPUT = '(no output)';

/**
 * The observation text of one REPL step, as the model reads it after "Output:\n": what the step printed (its
 * last newline dropped; the sandbox's truncation marker kept), then "<code>: <message>" if it failed.
 * Teacher episodes render observations with this function; rollouts must use the same one, or SFT teaches
 * a different observation shape from the one the policy meets.
 */
export function observationText(result: Pick<StepResult, 'stdout' | 'error'>): string {
  const lines: string[] = [];
  const printed = result.stdout.endsWith('\n') ? result.stdout.slice(0, -1) : result.stdout;
  if (printed !== '') lines.push(printed);
  if (result.error !== null) lines.push(`${result.error.code}: ${result.error.message}`);
  return lines.length === 0 ? NO_OUTPUT : lines.join('\n');
}
