import { stat } from 'node:fs/promises';
import { loadCheckpoint, ModelGraphs, type DecodeBackend, type Tokenizer } from '@fathom/model';
import { IM_END } from '@fathom/rlm';
import type { RuntimeConfig } from '@fathom/tensor';
import { InferenceError, InferenceErrorCode } from './inference.errors';

/** The weights that answer Inference.Generate, ready to sample from. */
export interface InferenceModel {
  decoder: DecodeBackend;
  tokenizer: Tokenizer;
  /** Ids that end a completion: the checkpoint's eos ids and the chat end-of-turn marker (`<|im_end|>`). */
  stopTokens: readonly number[];
  /** Frees the decoder's sessions. */
  release(): Promise<void>;
}

/** Where the model comes from; called until it succeeds once. Fails with InferenceError(ModelUnavailable). */
export type InferenceModelLoader = () => Promise<InferenceModel>;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Loads a Hugging Face–style checkpoint folder (config.json, model.safetensors, tokenizer.json) into a KV-cache
 * decoder on `runtime`'s execution provider. A missing folder, a folder libs/model cannot load, or one without a
 * tokenizer is ModelUnavailable naming the folder.
 */
export function checkpointModelLoader(dir: string, runtime: RuntimeConfig = {}): InferenceModelLoader {
  return async () => {
    const isFolder = await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isFolder) {
      throw new InferenceError(
        InferenceErrorCode.ModelUnavailable,
        `inference checkpoint folder ${dir} does not exist (INFERENCE_CHECKPOINT); train or copy a model there`,
      );
    }
    const checkpoint = await loadCheckpoint(dir).catch((error: unknown) => {
      throw new InferenceError(
        InferenceErrorCode.ModelUnavailable,
        `cannot load inference checkpoint ${dir}: ${errorMessage(error)}`,
      );
    });
    const { config, params, tokenizer } = checkpoint;
    if (tokenizer === null) {
      throw new InferenceError(
        InferenceErrorCode.ModelUnavailable,
        `inference checkpoint ${dir} has no tokenizer.json, so prompts cannot be encoded`,
      );
    }
    const imEnd = tokenizer.tokenId(IM_END);
    const stopTokens = [...new Set([...config.eosTokenIds, ...(imEnd === undefined ? [] : [imEnd])])];
    const decoder = new ModelGraphs(config, { kind: 'full' }, runtime).decoder(params);
    return { decoder, tokenizer, stopTokens, release: () => decoder.release() };
  };
}
