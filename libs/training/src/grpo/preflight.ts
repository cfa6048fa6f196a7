import { access, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PromptStyleSchema, type Task } from '@fathom/contracts';
import type { Tokenizer } from '@fathom/model';
import {
  encodeSegments,
  preflightPromptShapes,
  PromptDriftError,
  renderConversation,
  renderPrompt,
  type PromptStyle,
} from '@fathom/rlm';
import { CheckpointStore, TrainingStateSchema } from '../checkpoint.store';
import { encodeConversation } from '../tokens';
import type { GrpoTrainConfig } from './config';
import { TrainingError } from '../errors';
import { PROMPT_STYLE_FILE, readPromptStyle } from '../prompt-style.file';

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** The prompt style a run's training state records (SFT or GRPO). */
async function styleFromState(dir: string): Promise<PromptStyle | null> {
  const file = join(dir, 'training_state.json');
  if (!(await exists(file))) return null;
  const state = TrainingStateSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  // An SFT run records the style its data was preflighted against; a GRPO run, the style it rolled out with.
  const config = state.config as { rolloutPromptStyle?: unknown; episode?: { promptStyle?: unknown } } | undefined;
  const parsed = PromptStyleSchema.safeParse(config?.rolloutPromptStyle ?? config?.episode?.promptStyle);
  return parsed.success ? parsed.data : null;
}

/**
 * The prompt style the SFT checkpoint was trained with: the one the checkpoint records (`PROMPT_STYLE_FILE`), else
 * the SFT run's training state — in the checkpoint folder itself, or, for `<run>/final`, in the run's latest
 * checkpoint. Throws INVALID_CONFIG when none exists: a run that cannot be preflighted does not start.
 */
export async function resolveSftPromptStyle(config: GrpoTrainConfig): Promise<PromptStyle> {
  const dir = config.model.checkpoint;
  const recorded = await readPromptStyle(dir);
  if (recorded) return recorded;
  const own = await styleFromState(dir);
  if (own) return own;
  if (basename(dir) === 'final') {
    const latest = await new CheckpointStore(dirname(dir)).latest();
    const style = latest === null ? null : await styleFromState(latest);
    if (style) return style;
  }
  throw new TrainingError(
    'INVALID_CONFIG',
    `cannot tell which prompt style ${dir} was trained with (no SFT training_state.json there or in its run); ` +
      `write it to ${join(dir, PROMPT_STYLE_FILE)} as {"system": "full"|"compact", "previewChars": N}`,
    { trainer: 'GRPO' },
  );
}

/**
 * The preflight of a GRPO run, on one task: the SFT-style rendering of an episode (the one renderer with the SFT
 * run's style) and the rollout prompt (the run's episode style) must have the same prompt — text and token ids.
 * Throws PROMPT_DRIFT with a line diff ("-" SFT, "+" rollout) otherwise.
 */
export function preflightGrpo(
  task: Task,
  sftStyle: PromptStyle,
  rolloutStyle: PromptStyle,
  tokenizer: Tokenizer,
): void {
  const prompt = { question: task.question, context: task.context, contextTokens: task.context_tokens };
  const sft = renderConversation(prompt, [{ completion: `<answer>${task.answer}</answer>` }], sftStyle);
  const rollout = renderPrompt(prompt, rolloutStyle);
  try {
    preflightPromptShapes(sft, rollout);
  } catch (error) {
    if (error instanceof PromptDriftError)
      throw new TrainingError('PROMPT_DRIFT', `task ${task.id}: ${error.message}`, {
        trainer: 'GRPO',
        taskId: task.id,
      });
    throw error;
  }
  const sftIds = encodeConversation(
    sft.filter((_, i) => i < sft.findIndex((s) => s.trained)),
    tokenizer,
  ).ids;
  const rolloutIds = encodeSegments(rollout, [], tokenizer).ids;
  const at = sftIds.findIndex((id, i) => id !== rolloutIds[i]);
  if (at !== -1 || sftIds.length !== rolloutIds.length)
    throw new TrainingError(
      'PROMPT_DRIFT',
      `task ${task.id}: same prompt text but different token ids (first difference at position ` +
        `${at === -1 ? Math.min(sftIds.length, rolloutIds.length) : at})`,
      { trainer: 'GRPO', taskId: task.id },
    );
}
