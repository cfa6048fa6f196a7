import { loadCheckpoint, ModelGraphs, type Checkpoint } from '@fathom/model';
import { DEFAULT_PROMPT_STYLE, SamplerPolicy, type PromptStyle } from '@fathom/rlm';
import type { RuntimeConfig } from '@fathom/tensor';
import { readPromptStyle } from './prompt-style.file';

export interface LoadedPolicy {
  policy: SamplerPolicy;
  /** The prompt style the checkpoint was trained with (see `resolvePromptStyle`). */
  promptStyle: PromptStyle;
  checkpoint: Checkpoint;
  /** Frees the decoding sessions. */
  release(): Promise<void>;
}

/**
 * The prompt style to run a checkpoint with: the one it was trained with (its fathom_prompt_style.json). `asked` may
 * only restate it; a checkpoint without one (untrained, or foreign) takes `asked` or the default style.
 */
export async function resolvePromptStyle(dir: string, asked?: PromptStyle['system']): Promise<PromptStyle> {
  const trained = await readPromptStyle(dir);
  if (trained && asked !== undefined && trained.system !== asked) {
    throw new Error(
      `${dir} was trained with the "${trained.system}" prompt style; running it with "${asked}" would ask it in a ` +
        'shape it never saw',
    );
  }
  return trained ?? (asked === undefined ? DEFAULT_PROMPT_STYLE : { ...DEFAULT_PROMPT_STYLE, system: asked });
}

/** Loads a checkpoint folder as a sampling policy with its prompt style: the one way the CLI runs a checkpoint. */
export async function loadPolicy(
  dir: string,
  options: { version?: number; promptStyle?: PromptStyle['system']; runtime?: RuntimeConfig } = {},
): Promise<LoadedPolicy> {
  const checkpoint = await loadCheckpoint(dir);
  if (checkpoint.tokenizer === null) throw new Error(`${dir} has no tokenizer.json`);
  const promptStyle = await resolvePromptStyle(dir, options.promptStyle);
  const graphs = new ModelGraphs(checkpoint.config, { kind: 'full' }, options.runtime);
  const decoder = graphs.decoder(checkpoint.params);
  return {
    policy: new SamplerPolicy(decoder, checkpoint.tokenizer, options.version ?? 0),
    promptStyle,
    checkpoint,
    release: async () => {
      await decoder.release();
      await graphs.release();
    },
  };
}
