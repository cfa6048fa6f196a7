/**
 * Writes one train step's gradients for `grads_vs_torch.py` to check against PyTorch in float64: a checkpoint's (or
 * the fresh default model's) parameters, a batch of bytes of a text file, the mean negative log-likelihood over every
 * position, and every parameter's gradient as `ModelGraphs.trainStep` computes it, in one safetensors file.
 *
 *   node --no-node-snapshot --import tsx bench/model/grads.ts [--checkpoint DIR] [--length 256] [--out FILE]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import {
  createDefaultModel,
  loadCheckpoint,
  ModelGraphs,
  serializeSafetensors,
  toHfConfig,
  type NamedTensor,
} from '@fathom/model';

const opts = new Command()
  .option('--checkpoint <dir>', 'a Hugging Face–style model folder (default: the fresh default model)')
  .option('--batch <n>', 'rows', Number, 4)
  .option('--length <n>', 'positions a row', Number, 256)
  .option('--text <file>', 'the bytes the rows are cut from', 'docs/RESULTS.md')
  .option('--out <file>', 'where the safetensors file goes', 'out/grads.safetensors')
  .parse()
  .opts<{ checkpoint?: string; batch: number; length: number; text: string; out: string }>();

const model = opts.checkpoint ? await loadCheckpoint(opts.checkpoint) : await createDefaultModel();
const { batch, length } = opts;
const bytes = readFileSync(opts.text);
if (bytes.length < batch * (length + 1))
  throw new Error(`${opts.text} has ${bytes.length} bytes, fewer than ${batch} rows of ${length + 1}`);
const ids = new Float32Array(batch * length);
const targets = new Float32Array(batch * length);
for (let b = 0; b < batch; b++)
  for (let t = 0; t < length; t++) {
    ids[b * length + t] = bytes[b * (length + 1) + t];
    targets[b * length + t] = bytes[b * (length + 1) + t + 1];
  }
const graphs = new ModelGraphs(model.config, { kind: 'full' }, { specializeShapes: false });
const step = await graphs.trainStep(
  model.params,
  { batch, length, ids, targets },
  new Float32Array(batch * length).fill(-1 / (batch * length)),
);
await graphs.release();
const tensors: NamedTensor[] = [
  { name: 'ids', shape: [batch, length], data: ids },
  { name: 'targets', shape: [batch, length], data: targets },
];
for (const [name, param] of model.params) {
  tensors.push({ name: `param.${name}`, shape: [param.length], data: param });
  tensors.push({ name: `grad.${name}`, shape: [param.length], data: step.grads.get(name)! });
}
const config = JSON.stringify(toHfConfig(model.config));
writeFileSync(opts.out, serializeSafetensors(tensors, 'F32', { loss: String(step.loss), config }));
console.log(JSON.stringify({ bench: 'grads', out: opts.out, batch, length, loss: step.loss }));
