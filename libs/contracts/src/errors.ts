/**
 * Which unit of work an error happened in, for logs and for the user reading the message: every field is optional,
 * and an error carries the ones its thrower knows.
 */
export interface ErrorContext {
  readonly runId?: string;
  readonly taskId?: string;
  readonly episodeId?: string;
  /** The training step (1-based) or the episode's turn, whichever the thrower counts. */
  readonly step?: number;
}

/**
 * The one error base of FATHOM. Each module keeps its own code set (a union of string literals) and its own
 * subclass, with one place that words a code as a message and, at a transport edge, one exhaustive switch that maps
 * it to an HTTP or gRPC status. `Code` is constrained to upper-case strings, so every code set has one casing
 * (UPPER_SNAKE: `INVALID_CONFIG`); a wire format that spells codes otherwise (OpenAI's `invalid_request`) converts
 * at its edge.
 */
export abstract class FathomError<Code extends Uppercase<string>> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    readonly context: ErrorContext = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
