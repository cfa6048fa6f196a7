/**
 * Policy weights over gRPC on localhost: GetWeights throughput for the shipped default model (F32), received,
 * written into preallocated buffers and SHA-256-verified by PolicyClient. Prints one JSON line per data chunk size
 * with the median over repeats (after one warm-up transfer), and one for the server's first hash of a snapshot.
 *
 *   node --no-node-snapshot --import tsx bench/rpc/weights.bench.ts [--repeats 5] [--chunks 262144,0,4194304]
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createDefaultModel, paramSpecs, toHfConfig } from '@fathom/model';
import { createLogger } from '@fathom/observability';
import { DEFAULT_CHUNK_BYTES, PolicyClient, snapshotLayout, startPolicyServer, type PolicySnapshot } from '@fathom/rpc';
import { median } from '@fathom/contracts';

const { values } = parseArgs({
  options: {
    repeats: { type: 'string', default: '5' },
    chunks: { type: 'string', default: `0,${256 * 1024},${4 * 1024 * 1024}` },
  },
});
const repeats = Number(values.repeats);
const chunkSizes = values.chunks.split(',').map(Number);

const model = await createDefaultModel();
const snapshot: PolicySnapshot = {
  runId: 'bench',
  version: 1,
  step: 0,
  checkpointPath: null,
  configJson: JSON.stringify(toHfConfig(model.config)),
  tensors: paramSpecs(model.config).map((spec) => ({
    name: spec.name,
    shape: spec.shape,
    data: model.params.get(spec.name)!,
  })),
};
const params = snapshot.tensors.reduce((n, t) => n + t.data.length, 0);

const hashStart = performance.now();
const { totalBytes } = snapshotLayout(snapshot);
const hashMs = performance.now() - hashStart;
const env = { cpus: cpus().length, loadavg_1m: Number(loadavg()[0].toFixed(2)) };
console.log(
  JSON.stringify({ bench: 'rpc/snapshot_sha256', params, bytes: totalBytes, ms: Number(hashMs.toFixed(1)), ...env }),
);

const server = await startPolicyServer({
  host: '127.0.0.1',
  port: 0,
  source: { latest: () => snapshot, get: () => snapshot },
  logger: createLogger({ service: 'bench', level: 'warn' }),
});
const client = new PolicyClient(`127.0.0.1:${server.port}`, { retries: 0 });
try {
  for (const maxChunkBytes of chunkSizes) {
    await client.getWeights('bench', 1, { maxChunkBytes });
    const ms: number[] = [];
    for (let i = 0; i < repeats; i++) {
      const start = performance.now();
      const weights = await client.getWeights('bench', 1, { maxChunkBytes });
      ms.push(performance.now() - start);
      if (weights.info.totalBytes !== totalBytes) throw new Error('short transfer');
    }
    const mbPerS = ms.map((t) => totalBytes / 1e6 / (t / 1000));
    console.log(
      JSON.stringify({
        bench: 'rpc/GetWeights',
        chunk_bytes: maxChunkBytes === 0 ? DEFAULT_CHUNK_BYTES : maxChunkBytes,
        params,
        bytes: totalBytes,
        repeats,
        median_ms: Number(median(ms).toFixed(1)),
        median_mb_per_s: Number(median(mbPerS).toFixed(1)),
        min_mb_per_s: Number(Math.min(...mbPerS).toFixed(1)),
        max_mb_per_s: Number(Math.max(...mbPerS).toFixed(1)),
        ...env,
      }),
    );
  }
} finally {
  client.close();
  await server.close();
}
