import type { NextFunction, Request, Response } from 'express';

/** Why a request body could not be read: over the size limit, JSON that does not parse, or anything else. */
export interface BodyParserFailure {
  kind: 'too_large' | 'invalid_json' | 'unreadable';
  message: string;
}

/** body-parser's error, as Express hands it to an error middleware. */
interface BodyParserError {
  type?: string;
  message?: string;
  limit?: number;
}

/**
 * The Express error middleware of an HTTP service for body-parser's failures: `answer` writes the failure in the
 * service's own error taxonomy; any other error goes on to the next handler.
 */
export function onBodyParserError(answer: (failure: BodyParserFailure, req: Request, res: Response) => void) {
  return (err: BodyParserError | undefined, req: Request, res: Response, next: NextFunction) => {
    if (!err) return next();
    const failure: BodyParserFailure =
      err.type === 'entity.too.large'
        ? { kind: 'too_large', message: `request body is over the limit of ${err.limit} bytes` }
        : err.type === 'entity.parse.failed'
          ? { kind: 'invalid_json', message: `request body is not valid JSON: ${err.message}` }
          : { kind: 'unreadable', message: `request body could not be read: ${err.message}` };
    answer(failure, req, res);
  };
}
