import { mkdir, readFile, writeFile, access } from 'node:fs/promises';
import { join } from 'node:path';
import { parseHfConfig, toHfConfig, type ModelConfig } from './config';
import { ModelError } from './errors';
import { checkParams, paramSpecs, type ParamMap } from './params';
import { parseSafetensors, serializeSafetensors, type SafetensorsDtype } from './safetensors';
import { ByteTokenizer } from './tokenizer/byte.tokenizer';
import { HashedWordTokenizer } from './tokenizer/hashed-word.tokenizer';
import { HfTokenizer } from './tokenizer/hf.tokenizer';
import type { Tokenizer } from './tokenizer/tokenizer';
import { readWordList, writeWordList } from './word-vectors';

/** A model as a Hugging Face–style folder holds it. */
export interface Checkpoint {
  config: ModelConfig;
  params: ParamMap;
  /** Absent when the folder has no tokenizer.json. */
  tokenizer: Tokenizer | null;
  /** generation_config.json, passed through as is. */
  generationConfig: Record<string, unknown> | null;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

async function readJson(path: string): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new ModelError('INVALID_CONFIG', `${path}: ${(error as Error).message}`);
  }
}

/** Loads the tokenizer files of a folder: the native byte tokenizer when tokenizer.json is one, else `HfTokenizer`. */
export async function loadTokenizer(dir: string): Promise<Tokenizer | null> {
  const path = join(dir, 'tokenizer.json');
  if (!(await exists(path))) return null;
  const json = JSON.parse(await readFile(path, 'utf8')) as unknown;
  const configPath = join(dir, 'tokenizer_config.json');
  const tokenizerConfig = (await exists(configPath)) ? await readJson(configPath) : {};
  return (
    ByteTokenizer.fromTokenizerJson(json) ??
    HashedWordTokenizer.fromTokenizerJson(json) ??
    new HfTokenizer(json, tokenizerConfig)
  );
}

/**
 * Loads `config.json`, the weights (`model.safetensors`, or shards listed by `model.safetensors.index.json`;
 * F32, F16 or BF16, widened to float32) and the tokenizer of a Hugging Face–style folder. Every tensor is
 * checked against the config: a missing, unexpected or mis-shaped one throws naming it. A tied model's stray
 * `lm_head.weight` and legacy `rotary_emb.inv_freq` buffers are ignored. A reader with word vectors gets its word
 * list (word_vectors.txt) attached to its config.
 */
export async function loadCheckpoint(dir: string): Promise<Checkpoint> {
  const config = parseHfConfig(await readJson(join(dir, 'config.json')));
  const indexPath = join(dir, 'model.safetensors.index.json');
  const files = (await exists(indexPath))
    ? [...new Set(Object.values((await readJson(indexPath)).weight_map as Record<string, string>))]
    : ['model.safetensors'];
  const params: ParamMap = new Map();
  const shapes = new Map<string, number[]>();
  for (const file of files) {
    const { tensors } = parseSafetensors(await readFile(join(dir, file)), file);
    for (const [name, t] of tensors) {
      if (name.endsWith('rotary_emb.inv_freq') || (config.tieWordEmbeddings && name === 'lm_head.weight')) continue;
      params.set(name, t.data);
      shapes.set(name, t.shape);
    }
  }
  checkParams(config, params, shapes);
  if (config.reader?.wordVectors) config.reader.wordVectors = await readWordList(dir, config.reader.wordVectors);
  const tokenizer = await loadTokenizer(dir);
  if (tokenizer && tokenizer.vocabSize > config.vocabSize) {
    throw new ModelError(
      'INVALID_CONFIG',
      `config.json field 'vocab_size' is ${config.vocabSize}, smaller than the tokenizer's ${tokenizer.vocabSize}`,
    );
  }
  const genPath = join(dir, 'generation_config.json');
  const generationConfig = (await exists(genPath)) ? await readJson(genPath) : null;
  return { config, params, tokenizer, generationConfig };
}

/**
 * Writes a Hugging Face–style folder: config.json, model.safetensors (in `dtype`, default F32), a reader's word list
 * (word_vectors.txt), the tokenizer files and generation_config.json when present. Creates `dir`; overwrites those files.
 */
export async function saveCheckpoint(
  dir: string,
  checkpoint: Checkpoint,
  dtype: SafetensorsDtype = 'F32',
): Promise<void> {
  const { config, params, tokenizer, generationConfig } = checkpoint;
  checkParams(config, params);
  await mkdir(dir, { recursive: true });
  const tensors = paramSpecs(config).map((s) => ({ name: s.name, shape: s.shape, data: params.get(s.name)! }));
  await writeFile(join(dir, 'model.safetensors'), serializeSafetensors(tensors, dtype, { format: 'pt' }));
  const hf = { ...toHfConfig(config), torch_dtype: { F32: 'float32', F16: 'float16', BF16: 'bfloat16' }[dtype] };
  await writeFile(join(dir, 'config.json'), JSON.stringify(hf, null, 2) + '\n');
  if (config.reader?.wordVectors) await writeWordList(dir, config.reader.wordVectors);
  if (tokenizer) {
    for (const [name, content] of Object.entries(tokenizer.files())) {
      await writeFile(join(dir, name), JSON.stringify(content, null, 2) + '\n');
    }
  }
  if (generationConfig)
    await writeFile(join(dir, 'generation_config.json'), JSON.stringify(generationConfig, null, 2) + '\n');
}
