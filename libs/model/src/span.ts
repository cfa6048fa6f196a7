import { ModelError } from './errors';

/**
 * Span-constrained (extractive) decoding: a completion must be a non-empty run of consecutive tokens of one of
 * the `sources`, then a stop token. At each step only the tokens that continue a still-matching span are allowed,
 * and the stop tokens once the span is non-empty; the sampler masks every other logit. Copying is then by
 * construction: the model chooses where a span starts and where it ends, not how to spell it.
 *
 * With `wordTokens` (the ids that are part of a word, e.g. letter and digit bytes) a span also starts and ends at
 * word edges: it never starts or stops between two word tokens, so "Nesnes" cannot come out as "Nesne" or "esnes".
 */
export class SpanConstraint {
  /** Per source, the start offsets whose span still matches every token emitted so far. */
  private starts: number[][];
  private emitted = 0;

  constructor(
    private readonly sources: readonly (readonly number[])[],
    private readonly stopTokens: ReadonlySet<number>,
    private readonly wordTokens?: ReadonlySet<number>,
  ) {
    this.starts = sources.map((source) => source.flatMap((_, j) => (this.isEdge(source, j) ? [j] : [])));
  }

  /** True when offset `j` of `source` (0..length) does not fall between two word tokens. */
  private isEdge(source: readonly number[], j: number): boolean {
    const words = this.wordTokens;
    return words === undefined || j === 0 || j === source.length || !words.has(source[j - 1]) || !words.has(source[j]);
  }

  /** The tokens that may come next; empty when every matching span has reached its source's end and no stop is set. */
  allowed(): Set<number> {
    const next = new Set<number>();
    let mayStop = false;
    this.sources.forEach((source, k) => {
      for (const j of this.starts[k]) {
        const end = j + this.emitted;
        if (end < source.length) next.add(source[end]);
        if (this.emitted > 0 && this.isEdge(source, end)) mayStop = true;
      }
    });
    if (mayStop) for (const t of this.stopTokens) next.add(t);
    return next;
  }

  /** Records the token just emitted (a stop token ends the completion and is never advanced over). */
  advance(token: number): void {
    const at = this.emitted;
    this.starts = this.starts.map((starts, k) => starts.filter((j) => this.sources[k][j + at] === token));
    this.emitted++;
  }

  /**
   * The allowed set before each of `tokens`, replayed from a fresh constraint: what the sampler masked at each step
   * of a completion it drew. Throws `ModelError` (INVALID_ARGUMENT) naming the first token the constraint forbids.
   */
  static replay(
    spec: { sources: readonly (readonly number[])[]; stopTokens: readonly number[]; wordTokens?: readonly number[] },
    tokens: readonly number[],
  ): Set<number>[] {
    const words = spec.wordTokens === undefined ? undefined : new Set(spec.wordTokens);
    const span = new SpanConstraint(spec.sources, new Set(spec.stopTokens), words);
    return tokens.map((token, i) => {
      const allowed = span.allowed();
      if (!allowed.has(token))
        throw new ModelError(
          'INVALID_ARGUMENT',
          `token ${token} at completion position ${i} is outside its span constraint`,
        );
      span.advance(token);
      return allowed;
    });
  }

  /** `logits` with every token outside `allowed` set to −∞ (a new array; `logits` is left as it is). */
  static mask(logits: ArrayLike<number>, allowed: ReadonlySet<number>): Float32Array {
    const masked = new Float32Array(logits.length).fill(-Infinity);
    for (const t of allowed) masked[t] = logits[t];
    return masked;
  }
}
