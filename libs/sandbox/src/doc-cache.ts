import { createHash } from 'node:crypto';

/**
 * Documents kept by key, least recently used dropped first once there are more than `capacity` of them or their text
 * passes `maxBytes` (2 bytes a UTF-16 code unit; a document larger than the whole budget is not kept). The sandbox
 * pool's supervisor and each worker keep one keyed by the caller's `ctxKey` and apply the same operations in IPC
 * order, so both agree on what the worker has without extra messages: a reset of a document the worker already
 * holds (GRPO resets one task G times) sends only the key. The env-service keeps inline documents in one keyed by
 * their `documentSha256`.
 */
export class DocCache {
  private readonly docs = new Map<string, string>();
  private bytes = 0;

  constructor(
    private readonly capacity: number,
    private readonly maxBytes = Infinity,
  ) {}

  /** The document kept under `key` (now the most recently used), or undefined. */
  get(key: string): string | undefined {
    const doc = this.docs.get(key);
    if (doc !== undefined) {
      this.docs.delete(key);
      this.docs.set(key, doc);
    }
    return doc;
  }

  /** Whether a document is kept under `key` (without touching its recency). */
  has(key: string): boolean {
    return this.docs.has(key);
  }

  set(key: string, doc: string): void {
    this.delete(key);
    if (doc.length * 2 > this.maxBytes) return;
    this.docs.set(key, doc);
    this.bytes += doc.length * 2;
    while (this.docs.size > this.capacity || this.bytes > this.maxBytes)
      this.delete(this.docs.keys().next().value as string);
  }

  get size(): number {
    return this.docs.size;
  }

  clear(): void {
    this.docs.clear();
    this.bytes = 0;
  }

  delete(key: string): void {
    const doc = this.docs.get(key);
    if (doc === undefined) return;
    this.docs.delete(key);
    this.bytes -= doc.length * 2;
  }
}

/** Documents cached per worker; 16 × a 200K-token document ≈ 13 MB on each side. */
export const DOC_CACHE_CAPACITY = 16;

/**
 * A document's name on the wire (`context_sha256`): the SHA-256 of its UTF-8 bytes as 64 lowercase hex digits, as a
 * client in any language computes it.
 */
export function documentSha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
