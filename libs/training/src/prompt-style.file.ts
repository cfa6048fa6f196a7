import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PromptStyleSchema, type PromptStyle } from '@fathom/contracts';

/**
 * The prompt style a checkpoint was trained with, written beside its weights. Whatever samples from the
 * checkpoint later (GRPO rollouts, eval) renders prompts in this style, so a policy is never asked in a shape it
 * was not trained on.
 */
export const PROMPT_STYLE_FILE = 'fathom_prompt_style.json';

export async function writePromptStyle(checkpointDir: string, style: PromptStyle): Promise<void> {
  await writeFile(join(checkpointDir, PROMPT_STYLE_FILE), `${JSON.stringify(PromptStyleSchema.parse(style))}\n`);
}

/** The checkpoint's prompt style, or null when it has none (an untrained or foreign checkpoint). */
export async function readPromptStyle(checkpointDir: string): Promise<PromptStyle | null> {
  const file = join(checkpointDir, PROMPT_STYLE_FILE);
  if (!existsSync(file)) return null;
  const parsed = PromptStyleSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file} is not a prompt style: ${parsed.error.message}`);
  return parsed.data;
}
