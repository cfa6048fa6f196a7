import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Checkpoint } from './checkpoint';
import { parseHfConfig, type ModelConfig } from './config';
import { ModelError } from './errors';
import { initParams } from './params';
import { ByteTokenizer } from './tokenizer/byte.tokenizer';
import type { Tokenizer } from './tokenizer/tokenizer';

const END_OF_TEXT = '<|endoftext|>';
const IM_END = '<|im_end|>';

/** The shipped tiny default model's config.json (Qwen2 layout, byte-level vocab of 256 + 4 specials, ~3.2M params). */
export const DEFAULT_CONFIG_PATH = fileURLToPath(new URL('../configs/default.json', import.meta.url));

/**
 * A freshly initialised model from a config.json file (default: the shipped tiny config). Without `tokenizer` it
 * has the byte-level tokenizer when the vocabulary has room for it (256 bytes + the default special tokens), else
 * none. With one (e.g. a trained BPE), the vocabulary is sized to it and the end tokens are its `<|endoftext|>` and
 * `<|im_end|>`.
 */
export async function createDefaultModel(
  configPath = DEFAULT_CONFIG_PATH,
  seed = 0,
  tokenizer?: Tokenizer,
): Promise<Checkpoint> {
  const read = parseHfConfig(JSON.parse(await readFile(configPath, 'utf8')));
  if (tokenizer === undefined) {
    const bytes = new ByteTokenizer();
    return withConfig(read, seed, bytes.vocabSize <= read.vocabSize ? bytes : null);
  }
  const eos = [END_OF_TEXT, IM_END].map((t) => tokenizer.tokenId(t));
  if (eos.some((id) => id === undefined))
    throw new ModelError(
      'INVALID_TOKENIZER',
      `a policy's tokenizer needs the special tokens ${END_OF_TEXT} and ${IM_END}`,
    );
  return withConfig({ ...read, vocabSize: tokenizer.vocabSize, eosTokenIds: eos as number[] }, seed, tokenizer);
}

function withConfig(config: ModelConfig, seed: number, tokenizer: Tokenizer | null): Checkpoint {
  return {
    config,
    params: initParams(config, seed),
    tokenizer,
    generationConfig: { eos_token_id: config.eosTokenIds, max_new_tokens: 512, do_sample: true, temperature: 1 },
  };
}
