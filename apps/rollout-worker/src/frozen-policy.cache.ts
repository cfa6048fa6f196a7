import type { Policy } from '@fathom/rlm';
import type { RuntimeConfig } from '@fathom/tensor';
import { loadPolicy, type LoadedPolicy } from '@fathom/training';

/**
 * The frozen policies of runs (`model.readerCheckpoint`, `model.rootCheckpoint`), loaded once per checkpoint folder
 * and kept until the worker closes: a frozen policy never changes during a run, and runs that name the same folder
 * share one decoder. The folders come from stored run configs, which the admin API confines to its data roots, so
 * there are few.
 */
export class FrozenPolicyCache {
  private readonly loaded = new Map<string, Promise<LoadedPolicy>>();

  constructor(private readonly runtime: RuntimeConfig = {}) {}

  /** The policy of the checkpoint folder `dir`, loaded on first use; a failed load is retried next time. */
  async policy(dir: string): Promise<Policy> {
    let loading = this.loaded.get(dir);
    if (loading === undefined) {
      loading = loadPolicy(dir, { runtime: this.runtime });
      loading.catch(() => this.loaded.delete(dir));
      this.loaded.set(dir, loading);
    }
    return (await loading).policy;
  }

  async close(): Promise<void> {
    const policies = [...this.loaded.values()];
    this.loaded.clear();
    for (const policy of policies) await (await policy.catch(() => null))?.release();
  }
}
