import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Checkpoint } from './checkpoint';
import { parseHfConfig } from './config';
import { initParams } from './params';
import { ByteTokenizer } from './tokenizer/byte.tokenizer';

/** The shipped tiny default model's config.json (Qwen2 layout, byte-level vocab of 256 + 4 specials, ~3.2M params). */
export const DEFAULT_CONFIG_PATH = fileURLToPath(new URL('../configs/default.json', import.meta.url));

/**
 * A freshly initialised model from a config.json file (default: the shipped tiny config), with the byte-level
 * tokenizer when the vocabulary has room for it (256 bytes + the default special tokens), else none.
 */
export async function createDefaultModel(configPath = DEFAULT_CONFIG_PATH, seed = 0): Promise<Checkpoint> {
  const config = parseHfConfig(JSON.parse(await readFile(configPath, 'utf8')));
  const tokenizer = new ByteTokenizer();
  return {
    config,
    params: initParams(config, seed),
    tokenizer: tokenizer.vocabSize <= config.vocabSize ? tokenizer : null,
    generationConfig: { eos_token_id: config.eosTokenIds, max_new_tokens: 512, do_sample: true, temperature: 1 },
  };
}
