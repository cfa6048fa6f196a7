import { createHash } from 'node:crypto';

/** SHA-256 of a document as 64 lowercase hex digits (over its UTF-8 bytes), the name a reset gives it. */
export function documentSha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Documents kept by their SHA-256, least recently used dropped first once their text passes `maxBytes` (2 bytes a
 * UTF-16 code unit). A document is only stored under its own hash (`DocumentCache.store` checks it), so a name
 * always means the same text, whoever stored it.
 */
export class DocumentCache {
  private readonly documents = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Keeps `text` under `sha256`; false (nothing kept) when `sha256` is not its hash. */
  store(sha256: string, text: string): boolean {
    if (documentSha256(text) !== sha256) return false;
    const size = text.length * 2;
    if (size > this.maxBytes) return true;
    this.drop(sha256);
    this.documents.set(sha256, text);
    this.bytes += size;
    for (const [oldest, document] of this.documents) {
      if (this.bytes <= this.maxBytes) break;
      this.documents.delete(oldest);
      this.bytes -= document.length * 2;
    }
    return true;
  }

  /** The document kept under `sha256` (now the most recently used), or undefined. */
  get(sha256: string): string | undefined {
    const text = this.documents.get(sha256);
    if (text === undefined) return undefined;
    this.documents.delete(sha256);
    this.documents.set(sha256, text);
    return text;
  }

  /** Whether a document is kept under `sha256` (without touching its recency). */
  has(sha256: string): boolean {
    return this.documents.has(sha256);
  }

  get size(): number {
    return this.documents.size;
  }

  private drop(sha256: string): void {
    const text = this.documents.get(sha256);
    if (text === undefined) return;
    this.documents.delete(sha256);
    this.bytes -= text.length * 2;
  }
}
