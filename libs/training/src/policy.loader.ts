import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadCheckpoint, ModelGraphs, SpanReader, type Checkpoint } from '@fathom/model';
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

/** The folder inside a checkpoint that holds its paired reader (a model with a span head), when it has one. */
export const PAIRED_READER_DIR = 'reader';

/** `<dir>/reader` when it holds a checkpoint (the reader paired with the checkpoint in `dir`), else null. */
export function pairedReaderDir(dir: string): string | null {
  const paired = join(dir, PAIRED_READER_DIR);
  return existsSync(join(paired, 'config.json')) ? paired : null;
}

/**
 * The span reader a checkpoint reads leaf `llm()` calls with: its own span head, else the one of the reader paired
 * with it in `<dir>/reader`, else none (it reads by generation). The one way a checkpoint's reader is found, for
 * `loadPolicy` and the rollout worker's Inference endpoint.
 */
export async function spanReaderOf(
  dir: string,
  checkpoint: Checkpoint,
  runtime?: RuntimeConfig,
): Promise<SpanReader | null> {
  if (checkpoint.config.reader?.spanHead && checkpoint.tokenizer !== null)
    return new SpanReader(
      new ModelGraphs(checkpoint.config, { kind: 'full' }, runtime),
      checkpoint.params,
      checkpoint.tokenizer,
    );
  const pairedDir = pairedReaderDir(dir);
  if (pairedDir === null) return null;
  const reader = await loadCheckpoint(pairedDir);
  if (!reader.config.reader?.spanHead) throw new Error(`${pairedDir} is not a reader: its config has no span head`);
  if (reader.tokenizer === null) throw new Error(`${pairedDir} has no tokenizer.json`);
  return new SpanReader(new ModelGraphs(reader.config, { kind: 'full' }, runtime), reader.params, reader.tokenizer);
}

/**
 * Loads a checkpoint folder as a sampling policy with its prompt style: the one way the CLI runs a checkpoint. Leaf
 * reads go to its span head or its paired reader (`PAIRED_READER_DIR`) when it has one.
 */
export async function loadPolicy(
  dir: string,
  options: { version?: number; promptStyle?: PromptStyle['system']; runtime?: RuntimeConfig } = {},
): Promise<LoadedPolicy> {
  const checkpoint = await loadCheckpoint(dir);
  if (checkpoint.tokenizer === null) throw new Error(`${dir} has no tokenizer.json`);
  const promptStyle = await resolvePromptStyle(dir, options.promptStyle);
  const reader = await spanReaderOf(dir, checkpoint, options.runtime);
  const graphs = new ModelGraphs(checkpoint.config, { kind: 'full' }, options.runtime);
  const decoder = graphs.decoder(checkpoint.params);
  return {
    policy: new SamplerPolicy(decoder, checkpoint.tokenizer, options.version ?? 0, reader ?? undefined),
    promptStyle,
    checkpoint,
    release: async () => {
      await decoder.release();
      await graphs.release();
      await reader?.release();
    },
  };
}
