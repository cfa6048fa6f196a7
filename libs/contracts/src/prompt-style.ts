import { z } from 'zod';

/**
 * How prompts look (libs/rlm's renderer): the one declaration of the style a run config's `rollout.promptStyle`, an SFT
 * config's `promptStyle` and `rolloutPromptStyle`, the episode config and a checkpoint's `fathom_prompt_style.json`
 * hold; the preflight checks that training and rollouts agree on it.
 */
export const PromptStyleSchema = z.strictObject({
  /** "full" explains the REPL in prose; "compact" is a short form for tiny byte-level models. */
  system: z.enum(['full', 'compact']),
  /** Characters of the document's start shown in the prompt. */
  previewChars: z.number().int().min(0).max(100_000),
});

export type PromptStyle = z.infer<typeof PromptStyleSchema>;

/** The style of a config or checkpoint that names none. */
export const DEFAULT_PROMPT_STYLE: PromptStyle = { system: 'full', previewChars: 160 };
