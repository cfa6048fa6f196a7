import { ModelGraphs, parseHfConfig, SpanReader, type KvCacheDecoder, type Tokenizer } from '@fathom/model';
import type { RuntimeConfig } from '@fathom/tensor';

/** The weights of one policy version as the learner serves them (libs/rpc PolicyClient.getWeights). */
export interface PolicyWeights {
  configJson: string;
  params: Map<string, Float32Array>;
}

/** Where weights come from: the learner's gRPC Policy service in production. */
export interface WeightsSource {
  getWeights(runId: string, version: number): Promise<PolicyWeights>;
}

export interface LoadedPolicy {
  runId: string;
  version: number;
  decoder: KvCacheDecoder;
  /** The version's span reads with the run's tokenizer, for a model with a span head (a reader trained by GRPO). */
  reader?: (tokenizer: Tokenizer) => SpanReader;
  /** Frees the version's sessions. */
  release(): Promise<void>;
}

interface Entry {
  runId: string;
  version: number;
  loading: Promise<LoadedPolicy>;
  users: number;
}

/**
 * Decoders of policy versions, cached by (run, version). A group asks for the exact version its job names; a
 * version not held is fetched from the learner and compiled once, however many groups ask at the same time. Older
 * versions of a run are released when `policy.updated` announces a newer one (`retireBefore`) and nobody uses them.
 */
export class PolicyCache {
  private readonly entries = new Map<string, Entry>();
  /** The newest version `policy.updated` announced per run; older cached versions are retired. */
  private readonly newest = new Map<string, number>();

  constructor(
    private readonly source: WeightsSource,
    private readonly runtime: RuntimeConfig = {},
  ) {}

  /**
   * Runs `use` with the decoder of (runId, version). Reports how long this call waited for weights (0 when they
   * were already loaded), the weight-sync time of the group.
   */
  async with<T>(
    runId: string,
    version: number,
    use: (policy: LoadedPolicy, weightSyncMs: number) => Promise<T>,
  ): Promise<T> {
    const key = `${runId}@${version}`;
    let entry = this.entries.get(key);
    const started = performance.now();
    if (entry === undefined) {
      entry = { runId, version, users: 0, loading: this.load(runId, version) };
      const created = entry;
      created.loading.catch(() => this.entries.delete(key));
      this.entries.set(key, created);
    }
    entry.users++;
    try {
      const policy = await entry.loading;
      return await use(policy, performance.now() - started);
    } finally {
      entry.users--;
      if (entry.users === 0 && this.isRetired(entry)) await this.release(key, entry);
    }
  }

  /** Drops every cached version of `runId` older than `version` that no group is using. */
  async retireBefore(runId: string, version: number): Promise<void> {
    this.newest.set(runId, Math.max(version, this.newest.get(runId) ?? 0));
    for (const [key, entry] of this.entries) {
      if (entry.users === 0 && this.isRetired(entry)) await this.release(key, entry);
    }
  }

  /** The newest version announced for `runId` (by `retireBefore`), if any. */
  newestVersion(runId: string): number | undefined {
    return this.newest.get(runId);
  }

  async close(): Promise<void> {
    for (const [key, entry] of this.entries) await this.release(key, entry);
  }

  private isRetired(entry: Entry): boolean {
    return entry.version < (this.newest.get(entry.runId) ?? 0);
  }

  private async release(key: string, entry: Entry): Promise<void> {
    this.entries.delete(key);
    const policy = await entry.loading.catch(() => null);
    await policy?.release();
  }

  private async load(runId: string, version: number): Promise<LoadedPolicy> {
    const weights = await this.source.getWeights(runId, version);
    const config = parseHfConfig(JSON.parse(weights.configJson));
    const graphs = new ModelGraphs(config, { kind: 'full' }, this.runtime);
    const decoder = graphs.decoder(weights.params);
    const release = async () => {
      await decoder.release();
      await graphs.release();
    };
    if (!config.reader?.spanHead) return { runId, version, decoder, release };
    return {
      runId,
      version,
      decoder,
      release,
      reader: (tokenizer) => new SpanReader(graphs, weights.params, tokenizer),
    };
  }
}
