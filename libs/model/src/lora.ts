import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { ModelConfig } from './config';
import { ModelError } from './errors';
import { LINEAR_MODULES, linearPrefix, linearShape, type ParamMap, type ParamSpec } from './params';
import { Rng } from '@fathom/contracts';
import { parseSafetensors, serializeSafetensors } from './safetensors';

/** Low-rank adapters W' = W + (alpha / rank) · B A on the listed projections of every layer. */
export const LoraConfigSchema = z.strictObject({
  rank: z.number().int().positive(),
  alpha: z.number().positive(),
  targetModules: z.array(z.enum(LINEAR_MODULES)).min(1),
});
export type LoraConfig = z.infer<typeof LoraConfigSchema>;

/**
 * Adapter tensors by `<projection prefix>.lora_A.weight` (rank, in) and `.lora_B.weight` (out, rank), e.g.
 * `model.layers.0.self_attn.q_proj.lora_A.weight`; PEFT files prefix these with `base_model.model.`.
 */
export type AdapterMap = Map<string, Float32Array>;

const PEFT_PREFIX = 'base_model.model.';

/** Every adapter tensor of a config, layer by layer. */
export function loraSpecs(config: ModelConfig, lora: LoraConfig): ParamSpec[] {
  const specs: ParamSpec[] = [];
  for (let l = 0; l < config.numLayers; l++) {
    for (const m of lora.targetModules) {
      const [out, inp] = linearShape(config, m);
      const p = linearPrefix(l, m);
      specs.push({ name: `${p}.lora_A.weight`, shape: [lora.rank, inp], init: 'normal' });
      specs.push({ name: `${p}.lora_B.weight`, shape: [out, lora.rank], init: 'zeros' });
    }
  }
  return specs;
}

/** Fresh adapters as PEFT initialises them: A ~ U(-1/√in, 1/√in), B = 0, so the adapted model starts equal to the base. */
export function initLora(config: ModelConfig, lora: LoraConfig, seed: number): AdapterMap {
  const rng = new Rng(seed);
  const adapters: AdapterMap = new Map();
  for (const spec of loraSpecs(config, lora)) {
    const data = new Float32Array(spec.shape[0] * spec.shape[1]);
    if (spec.init === 'normal') {
      const bound = 1 / Math.sqrt(spec.shape[1]);
      for (let i = 0; i < data.length; i++) data[i] = (2 * rng.float() - 1) * bound;
    }
    adapters.set(spec.name, data);
  }
  return adapters;
}

function checkAdapters(config: ModelConfig, lora: LoraConfig, adapters: AdapterMap): void {
  const specs = loraSpecs(config, lora);
  for (const s of specs) {
    const t = adapters.get(s.name);
    if (!t) throw new ModelError('INVALID_ADAPTER', `'${s.name}' is missing`);
    if (t.length !== s.shape[0] * s.shape[1]) {
      throw new ModelError('INVALID_ADAPTER', `'${s.name}' has ${t.length} elements, needs [${s.shape.join(', ')}]`);
    }
  }
  if (adapters.size !== specs.length) {
    const known = new Set(specs.map((s) => s.name));
    const extra = [...adapters.keys()].find((k) => !known.has(k));
    throw new ModelError('INVALID_ADAPTER', `'${extra}' is not an adapter of this LoRA config`);
  }
}

/** Base weights with the adapters folded in (W + (alpha/rank)·B·A); the inputs are not modified. */
export function mergeLora(config: ModelConfig, base: ParamMap, lora: LoraConfig, adapters: AdapterMap): ParamMap {
  checkAdapters(config, lora, adapters);
  const merged: ParamMap = new Map(base);
  const scale = lora.alpha / lora.rank;
  const r = lora.rank;
  for (let l = 0; l < config.numLayers; l++) {
    for (const m of lora.targetModules) {
      const p = linearPrefix(l, m);
      const [out, inp] = linearShape(config, m);
      const a = adapters.get(`${p}.lora_A.weight`)!;
      const b = adapters.get(`${p}.lora_B.weight`)!;
      const w = Float32Array.from(base.get(`${p}.weight`)!);
      for (let o = 0; o < out; o++) {
        for (let k = 0; k < r; k++) {
          const bk = scale * b[o * r + k];
          if (bk === 0) continue;
          for (let i = 0; i < inp; i++) w[o * inp + i] += bk * a[k * inp + i];
        }
      }
      merged.set(`${p}.weight`, w);
    }
  }
  return merged;
}

/**
 * Writes a PEFT adapter folder (adapter_config.json, adapter_model.safetensors with `base_model.model.` names),
 * loadable by `peft.PeftModel.from_pretrained`.
 */
export async function saveAdapter(
  dir: string,
  config: ModelConfig,
  lora: LoraConfig,
  adapters: AdapterMap,
  baseModel: string | null = null,
): Promise<void> {
  checkAdapters(config, lora, adapters);
  await mkdir(dir, { recursive: true });
  const tensors = loraSpecs(config, lora).map((s) => ({
    name: PEFT_PREFIX + s.name,
    shape: s.shape,
    data: adapters.get(s.name)!,
  }));
  await writeFile(join(dir, 'adapter_model.safetensors'), serializeSafetensors(tensors, 'F32', { format: 'pt' }));
  const peft = {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    base_model_name_or_path: baseModel,
    r: lora.rank,
    lora_alpha: lora.alpha,
    lora_dropout: 0,
    target_modules: lora.targetModules,
    bias: 'none',
    fan_in_fan_out: false,
    use_rslora: false,
    inference_mode: true,
  };
  await writeFile(join(dir, 'adapter_config.json'), JSON.stringify(peft, null, 2) + '\n');
}

const peftConfigSchema = z.looseObject({
  peft_type: z.literal('LORA'),
  r: z.number().int().positive(),
  lora_alpha: z.number().positive(),
  target_modules: z.array(z.enum(LINEAR_MODULES)).min(1),
  use_rslora: z.literal(false).default(false),
});

/** Reads a PEFT LoRA folder written by `saveAdapter` (or by PEFT, for the supported modules) for `config`. */
export async function loadAdapter(
  dir: string,
  config: ModelConfig,
): Promise<{ lora: LoraConfig; adapters: AdapterMap }> {
  const parsed = peftConfigSchema.safeParse(JSON.parse(await readFile(join(dir, 'adapter_config.json'), 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ModelError('INVALID_ADAPTER', `adapter_config.json field '${issue.path.join('.')}': ${issue.message}`);
  }
  const lora: LoraConfig = {
    rank: parsed.data.r,
    alpha: parsed.data.lora_alpha,
    targetModules: parsed.data.target_modules,
  };
  const { tensors } = parseSafetensors(
    await readFile(join(dir, 'adapter_model.safetensors')),
    'adapter_model.safetensors',
  );
  const adapters: AdapterMap = new Map();
  for (const [name, t] of tensors) {
    adapters.set(name.startsWith(PEFT_PREFIX) ? name.slice(PEFT_PREFIX.length) : name, t.data);
  }
  checkAdapters(config, lora, adapters);
  return { lora, adapters };
}
