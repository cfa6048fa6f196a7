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

/**
 * How a module words one of its codes: a summary, and then the message is `summary: detail`; or, for a message of
 * another form, a function that words the whole message from the detail.
 */
export type ErrorWording = string | ((detail: string) => string);

/**
 * A module's error class from its name and its wording table, the one place that turns a code into a message:
 * `class ModelError extends errorClass<ModelErrorCode>('ModelError', { INVALID_CONFIG: 'invalid model config', … }) {}`.
 * The table is a `Record<Code, …>`, so it is exhaustive by type as the switch it replaces was: a code added to the
 * union without a wording does not compile. The class is constructed as `new ModelError(code, detail, context?,
 * options?)`, its `name` is `name`, and `messageOf(code, detail)` gives the message it would carry.
 */
export function errorClass<Code extends Uppercase<string>>(
  name: string,
  wordings: Readonly<Record<Code, ErrorWording>>,
) {
  function messageOf(code: Code, detail: string): string {
    const wording: ErrorWording = wordings[code];
    return typeof wording === 'string' ? `${wording}: ${detail}` : wording(detail);
  }
  return class extends FathomError<Code> {
    override readonly name = name;
    static readonly messageOf = messageOf;
    constructor(code: Code, detail: string, context?: ErrorContext, options?: ErrorOptions) {
      super(code, messageOf(code, detail), context, options);
    }
  };
}
