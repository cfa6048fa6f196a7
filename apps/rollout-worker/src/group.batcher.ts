/**
 * Runs groups that arrive together as one batch. A worker takes up to CONCURRENCY rollout jobs at once; those that
 * share a key (run, policy version, G) within `windowMs` of the first run through one call of `runAll`
 * (`EpisodeRunner.runGroups`), so every live episode of the batch decodes in one batch, as the in-process loop
 * decodes a step's. A batch starts when it holds `maxGroups` groups, or `windowMs` after its first one; a group
 * that arrives after its key's batch started waits for the next. Results are the groups' own: each group samples
 * with its own seed, so batching changes no trajectory.
 */
export class GroupBatcher<G, R> {
  private readonly open = new Map<string, Batch<G, R>>();

  constructor(private readonly options: { maxGroups: number; windowMs: number }) {}

  /**
   * The result of `group` from its batch. `runAll` runs a whole batch, its results in the order of its groups; the
   * batch's first caller provides it. A failed batch fails each of its groups with the error.
   */
  run(key: string, group: G, runAll: (groups: G[]) => Promise<R[]>): Promise<R> {
    let batch = this.open.get(key);
    if (batch === undefined) {
      const created: Batch<G, R> = { groups: [], waiters: [], runAll, timer: undefined };
      created.timer = setTimeout(() => this.start(key, created), this.options.windowMs);
      this.open.set(key, created);
      batch = created;
    }
    const result = new Promise<R>((resolve, reject) => batch.waiters.push({ resolve, reject }));
    batch.groups.push(group);
    if (batch.groups.length >= this.options.maxGroups) this.start(key, batch);
    return result;
  }

  private start(key: string, batch: Batch<G, R>): void {
    if (this.open.get(key) !== batch) return;
    this.open.delete(key);
    clearTimeout(batch.timer);
    batch
      .runAll(batch.groups)
      .then((results) => {
        if (results.length !== batch.groups.length)
          throw new Error(`a batch of ${batch.groups.length} groups returned ${results.length} results`);
        return results;
      })
      .then(
        (results) => batch.waiters.forEach((w, i) => w.resolve(results[i]!)),
        (error: unknown) => batch.waiters.forEach((w) => w.reject(error)),
      );
  }
}

interface Batch<G, R> {
  groups: G[];
  waiters: { resolve: (result: R) => void; reject: (error: unknown) => void }[];
  runAll: (groups: G[]) => Promise<R[]>;
  timer: NodeJS.Timeout | undefined;
}
