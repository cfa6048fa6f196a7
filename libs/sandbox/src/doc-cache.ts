/**
 * The documents a worker holds, keyed by the caller's `ctxKey`. The supervisor and the worker each keep one
 * and apply the same operations in IPC order, so both agree on what the worker has without extra messages:
 * a reset of a document the worker already holds (GRPO resets one task G times) sends only the key.
 */
export class DocCache {
  private readonly docs = new Map<string, string>();

  constructor(private readonly capacity: number) {}

  get(key: string): string | undefined {
    const doc = this.docs.get(key);
    if (doc !== undefined) {
      this.docs.delete(key);
      this.docs.set(key, doc);
    }
    return doc;
  }

  set(key: string, doc: string): void {
    this.docs.delete(key);
    this.docs.set(key, doc);
    while (this.docs.size > this.capacity) this.docs.delete(this.docs.keys().next().value as string);
  }

  clear(): void {
    this.docs.clear();
  }
}

/** Documents cached per worker; 16 × a 200K-token document ≈ 13 MB on each side. */
export const DOC_CACHE_CAPACITY = 16;
