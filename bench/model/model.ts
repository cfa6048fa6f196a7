/**
 * Speed of the default policy model (libs/model/configs/default.json) on onnxruntime-node. One JSON line per
 * measurement, medians over timed runs.
 *
 *   node --no-node-snapshot --import tsx bench/model/model.ts [--threads N] [--runs N] [--config FILE] [--lengths 128,512]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Command } from 'commander';
import { lengthsOption, threadsOption } from '../options';
import { Graph, matmul, Runtime } from '@fathom/tensor';
import { DEFAULT_CONFIG_PATH, generate, initParams, ModelGraphs, parseHfConfig, type ModelConfig } from '@fathom/model';
import { median } from '@fathom/contracts';

const opts = new Command()
  .addOption(threadsOption())
  .option('--runs <n>', 'timed runs per measurement', (v) => Number(v), 5)
  .option('--config <file>', 'HF config.json to measure', DEFAULT_CONFIG_PATH)
  .option('--only <benches>', 'comma-separated subset of decode,generate,prefill,train')
  .option('--mem-pattern', "onnxruntime's memory pattern on (the runtime's default is off)", false)
  .addOption(lengthsOption('train_step: comma-separated sequence lengths at batch 8', [512]))
  .parse()
  .opts<{ threads: number; runs: number; config: string; only?: string; lengths: number[]; memPattern: boolean }>();
const selected = (name: string) => !opts.only || opts.only.split(',').includes(name);

const config = parseHfConfig(JSON.parse(readFileSync(opts.config, 'utf8')));
const runtime = { intraOpThreads: opts.threads, memPattern: opts.memPattern };
const params = initParams(config, 0);
const graphs = new ModelGraphs(config, { kind: 'full' }, runtime);
const decoder = graphs.decoder(params);
const meta = {
  config: opts.config.split('/').pop(),
  threads: opts.threads,
  runs: opts.runs,
  mem_pattern: opts.memPattern,
};
// The 1-minute load average rides along: on a shared machine it explains most run-to-run variance.
const emit = (o: Record<string, unknown>) =>
  console.log(JSON.stringify({ ...o, ...meta, load1: round(loadavg()[0], 2) }));
const round = (x: number, d = 1) => Number(x.toFixed(d));

/** Median and fastest of `runs` timed calls after `warmup` untimed ones, in ms. */
async function timeRuns(
  runs: number,
  fn: () => Promise<unknown>,
  warmup = 1,
): Promise<{ median: number; best: number }> {
  for (let i = 0; i < warmup; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return { median: median(ms), best: Math.min(...ms) };
}

const tokens = (n: number, seed: number) => Array.from({ length: n }, (_, i) => (i * 31 + seed * 7) % 256);

/** Steps of `rows` sequences after a shared prompt: decode throughput through the KV cache, prefill excluded. */
async function decode(rows: number, promptLength: number, newTokens: number) {
  const stepsMs: number[] = [];
  for (let r = 0; r <= opts.runs; r++) {
    const { session } = await decoder.start([{ tokens: tokens(promptLength, 1), rows }]);
    // Only the steps are timed (the prefill has its own bench); run 0 is a warmup.
    const t0 = performance.now();
    for (let s = 0; s < newTokens; s++) await session.step(tokens(rows, s));
    if (r > 0) stepsMs.push(performance.now() - t0);
    session.close();
  }
  const ms = median(stepsMs);
  const best = Math.min(...stepsMs);
  emit({
    bench: 'decode',
    batch: rows,
    prompt: promptLength,
    new_tokens: newTokens,
    step_ms: round(ms / newTokens, 3),
    tokens_per_s: round((rows * newTokens) / (ms / 1e3)),
    best_tokens_per_s: round((rows * newTokens) / (best / 1e3)),
  });
}

/** The sampler end to end (prefill shared by G completions, sampling, stop checks) at temperature 1. */
async function sampled(g: number, promptLength: number, newTokens: number) {
  let produced = 0;
  const { median: ms } = await timeRuns(opts.runs, async () => {
    const out = await generate(decoder, tokens(promptLength, 2), { n: g, maxNewTokens: newTokens, seed: 1 });
    produced = out.reduce((n, c) => n + c.tokens.length, 0);
  });
  emit({
    bench: 'generate',
    samples: g,
    prompt: promptLength,
    new_tokens: newTokens,
    ms: round(ms),
    tokens_per_s: round(produced / (ms / 1e3)),
  });
}

async function prefill(rows: number, length: number) {
  const prompts = Array.from({ length: rows }, (_, r) => ({ tokens: tokens(length, r), rows: 1 }));
  const { median: ms } = await timeRuns(opts.runs, async () => (await decoder.start(prompts)).session.close());
  emit({ bench: 'prefill', batch: rows, length, ms: round(ms), tokens_per_s: round((rows * length) / (ms / 1e3)) });
}

/** Matmul FLOPs of one forward pass over (B, T): projections, attention scores and values (full T×T), lm_head. */
function forwardFlops(c: ModelConfig, b: number, t: number): number {
  const d = c.hiddenSize;
  const proj = d * c.numHeads * c.headDim * 2 + d * c.numKvHeads * c.headDim * 2 + 3 * d * c.intermediateSize;
  const perLayer = 2 * b * t * proj + 2 * 2 * b * c.numHeads * t * t * c.headDim;
  return c.numLayers * perLayer + 2 * b * t * d * c.vocabSize;
}

async function gemmPeak(m: number, k: number, n: number): Promise<number> {
  const g = new Graph('gemm');
  const y = matmul(g.input('a', 'float32', [m, k]), g.input('b', 'float32', [k, n]));
  const compiled = new Runtime(runtime).compile(g, { y });
  const a = Float32Array.from({ length: m * k }, () => Math.random() - 0.5);
  const b = Float32Array.from({ length: k * n }, () => Math.random() - 0.5);
  // A peak is the best rate observed: on a shared machine, medians mostly measure the neighbours.
  const { median: ms, best } = await timeRuns(opts.runs * 4, () => compiled.run({ a, b }), 3);
  await compiled.release();
  const gflop = (2 * m * k * n) / 1e9;
  const peak = gflop / (best / 1e3);
  emit({ bench: 'gemm_peak', m, k, n, ms: round(ms, 3), gflops: round(gflop / (ms / 1e3)), best_gflops: round(peak) });
  return peak;
}

async function train(b: number, t: number, peak: number) {
  const ids = Array.from({ length: b * t }, (_, i) => (i * 13) % 256);
  const targets = Array.from({ length: b * t }, (_, i) => (i * 13 + 13) % 256);
  const weights = new Float32Array(b * t).fill(-1 / (b * t));
  const { median: ms, best } = await timeRuns(opts.runs, () =>
    graphs.trainStep(params, { batch: b, length: t, ids, targets }, weights),
  );
  const gflop = (3 * forwardFlops(config, b, t)) / 1e9;
  const gflops = gflop / (ms / 1e3);
  const bestGflops = gflop / (best / 1e3);
  emit({
    bench: 'train_step',
    batch: b,
    length: t,
    ms: round(ms),
    tokens_per_s: round((b * t) / (ms / 1e3)),
    gflop_per_step: round(gflop, 2),
    gflops: round(gflops),
    best_ms: round(best),
    best_gflops: round(bestGflops),
    // Best step against best GEMM, so the two were measured under comparable contention.
    fraction_of_gemm_peak: round(bestGflops / peak, 3),
    // The process's peak resident set so far: with `--only train`, the training step's peak memory.
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  });
}

if (selected('decode')) {
  await decode(1, 64, 128);
  await decode(8, 64, 128);
  await decode(8, 1024, 128);
  // A GRPO step's 32 episodes after their first turns: reading the cache is most of a step.
  await decode(32, 256, 64);
  await decode(32, 1024, 64);
  await decode(32, 2048, 64);
}
if (selected('generate')) await sampled(8, 64, 128);
if (selected('prefill')) {
  await prefill(1, 512);
  await prefill(8, 128);
}
if (selected('train')) {
  const peak = await gemmPeak(4096, 256, 768);
  for (const length of opts.lengths) await train(8, length, peak);
}
await decoder.release();
await graphs.release();
