import { stat } from 'node:fs/promises';
import { loadCheckpoint, ModelGraphs, type DecodeBackend, type SpanReader, type Tokenizer } from '@fathom/model';
import { IM_END } from '@fathom/rlm';
import type { RuntimeConfig } from '@fathom/tensor';
import { spanReaderOf } from '@fathom/training';
import { InferenceError } from './inference.errors';

/** The weights that answer Inference.Generate and ReadSpan, ready to sample and read with. */
export interface InferenceModel {
  /** Where it was loaded from (named in refusals). */
  source: string;
  decoder: DecodeBackend;
  tokenizer: Tokenizer;
  /** Ids that end a completion: the checkpoint's eos ids and the chat end-of-turn marker (`<|im_end|>`). */
  stopTokens: readonly number[];
  /** Answers ReadSpan: the checkpoint's span head or its paired reader's (`spanReaderOf`); null when it has neither. */
  reader: SpanReader | null;
  /** Frees the decoder's and the reader's sessions. */
  release(): Promise<void>;
}

/** Where the model comes from; called until it succeeds once. Fails with InferenceError(ModelUnavailable). */
export type InferenceModelLoader = () => Promise<InferenceModel>;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Loads a Hugging Face–style checkpoint folder (config.json, model.safetensors, tokenizer.json) into a KV-cache
 * decoder on `runtime`'s execution provider, with its span reader when it has one (its own span head, or the reader
 * paired with it in `<dir>/reader`, found as `loadPolicy` finds it). A missing folder, a folder libs/model cannot load,
 * one without a tokenizer, or a paired reader that is not one is ModelUnavailable naming the folder.
 */
export function checkpointModelLoader(dir: string, runtime: RuntimeConfig = {}): InferenceModelLoader {
  return async () => {
    const isFolder = await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isFolder) {
      throw new InferenceError(
        'MODEL_UNAVAILABLE',
        `inference checkpoint folder ${dir} does not exist (INFERENCE_CHECKPOINT); train or copy a model there`,
      );
    }
    const checkpoint = await loadCheckpoint(dir).catch((error: unknown) => {
      throw new InferenceError('MODEL_UNAVAILABLE', `cannot load inference checkpoint ${dir}: ${errorMessage(error)}`);
    });
    const { config, params, tokenizer } = checkpoint;
    if (tokenizer === null) {
      throw new InferenceError(
        'MODEL_UNAVAILABLE',
        `inference checkpoint ${dir} has no tokenizer.json, so prompts cannot be encoded`,
      );
    }
    const imEnd = tokenizer.tokenId(IM_END);
    const stopTokens = [...new Set([...config.eosTokenIds, ...(imEnd === undefined ? [] : [imEnd])])];
    const reader = await spanReaderOf(dir, checkpoint, runtime).catch((error: unknown) => {
      throw new InferenceError(
        'MODEL_UNAVAILABLE',
        `cannot load the span reader of inference checkpoint ${dir}: ${errorMessage(error)}`,
      );
    });
    const decoder = new ModelGraphs(config, { kind: 'full' }, runtime).decoder(params);
    return {
      source: dir,
      decoder,
      tokenizer,
      stopTokens,
      reader,
      release: async () => {
        await decoder.release();
        await reader?.release();
      },
    };
  };
}
