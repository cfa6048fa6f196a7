/**
 * Speed of the SFT loop on the default policy model: one JSON line per measurement, medians over timed steps.
 *
 *   node --no-node-snapshot --import tsx bench/training/sft.ts [--runs N] [--batch B] [--lengths 640,1280] [--threads N]
 *        [--shapes dynamic|specialized]   # one session for every length (the trainer's), or one per length
 *        [--data CONFIG]   # also measure padding with and without length bucketing on that SFT config's data
 */
import { loadavg } from 'node:os';
import { Command, Option } from 'commander';
import { lengthsOption, threadsOption } from '../options';
import { createDefaultModel, ModelGraphs } from '@fathom/model';
import {
  createAdamW,
  EpochSampler,
  loadSftConfig,
  packBatch,
  readSftConversations,
  sftTokenWeights,
  splitHeldOut,
  tokenizeConversations,
  type MaskedSequence,
} from '@fathom/training';
import { median } from '@fathom/contracts';

const opts = new Command()
  .option('--runs <n>', 'timed steps per measurement', (v) => Number(v), 5)
  .option('--batch <n>', 'conversations per step', (v) => Number(v), 8)
  .addOption(lengthsOption('tokens per conversation', [640, 1280]))
  .addOption(
    new Option('--shapes <kind>', 'one compiled session for every length, or one per length')
      .choices(['dynamic', 'specialized'])
      .default('dynamic'),
  )
  .option('--data <config>', 'an SFT config whose data to measure padding on')
  .addOption(threadsOption())
  .parse()
  .opts<{
    runs: number;
    batch: number;
    lengths: number[];
    shapes: 'dynamic' | 'specialized';
    data?: string;
    threads: number;
  }>();

const round = (x: number, d = 1) => Number(x.toFixed(d));
const emit = (o: Record<string, unknown>) =>
  console.log(JSON.stringify({ ...o, threads: opts.threads, load1: round(loadavg()[0], 2) }));

const model = await createDefaultModel();
const graphs = new ModelGraphs(
  model.config,
  { kind: 'full' },
  { specializeShapes: opts.shapes === 'specialized', intraOpThreads: opts.threads },
);
const optimizer = createAdamW(
  model.params,
  graphs.trainableSpecs,
  { lr: 1e-3, warmupSteps: 10, minLr: 1e-4, weightDecay: 0.01, maxGradNorm: 1, beta1: 0.9, beta2: 0.95 },
  1000,
);

/** A conversation of `n` tokens whose last eighth is trained on (about the share of teacher examples). */
const conversation = (n: number, seed: number): MaskedSequence => ({
  ids: Array.from({ length: n }, (_, i) => (i * 31 + seed * 7) % 256),
  mask: Array.from({ length: n }, (_, i) => (i >= n - n / 8 ? 1 : 0)),
});

for (const length of opts.lengths) {
  const rows = Array.from({ length: opts.batch }, (_, b) => conversation(length, b));
  const ms: number[] = [];
  const updateMs: number[] = [];
  for (let r = 0; r <= opts.runs; r++) {
    const t0 = performance.now();
    const packed = packBatch(rows, { padId: 259, padMultiple: 64, maxLength: 4095 });
    const result = await graphs.trainStep(model.params, packed.batch, sftTokenWeights(packed));
    const t1 = performance.now();
    optimizer.update(Object.fromEntries(result.grads));
    const t2 = performance.now();
    // Run 0 compiles the graph and is not timed.
    if (r > 0) {
      ms.push(t2 - t0);
      updateMs.push(t2 - t1);
    }
  }
  emit({
    bench: 'sft_step',
    batch: opts.batch,
    tokens_per_row: length,
    median_ms: round(median(ms)),
    adamw_ms: round(median(updateMs)),
    tokens_per_s: round((opts.batch * (length - 1)) / (median(ms) / 1000)),
    shapes: opts.shapes,
    // Peak resident memory of the process so far: each length's compile adds its arena when shapes are specialized.
    max_rss_mib: round(process.resourceUsage().maxRSS / 1024),
    runs: opts.runs,
  });
}
await graphs.release();

if (opts.data) {
  const config = await loadSftConfig(opts.data);
  const { examples } = tokenizeConversations(await readSftConversations(config), model.tokenizer!, config.seqLen);
  const { train } = splitHeldOut(examples, config.evalFraction, config.seed);
  const lengths = train.map((e) => e.ids.length);
  for (const window of [0, config.bucketWindow || 16]) {
    const sampler = new EpochSampler(
      train.length,
      config.seed,
      undefined,
      window > 0 ? { batchSize: config.batchSize, lengths, window } : undefined,
    );
    let real = 0;
    let padded = 0;
    const steps = Math.ceil((4 * train.length) / config.batchSize);
    for (let s = 0; s < steps; s++) {
      const p = packBatch(
        sampler.next(config.batchSize).map((i) => train[i]),
        { padId: 0, padMultiple: config.padMultiple, maxLength: config.seqLen - 1 },
      );
      real += p.tokens;
      padded += p.batch.batch * p.batch.length;
    }
    emit({
      bench: 'padding',
      bucket_window: window,
      pad_multiple: config.padMultiple,
      batch: config.batchSize,
      examples: train.length,
      steps,
      real_over_padded: round(real / padded, 3),
    });
  }
}
