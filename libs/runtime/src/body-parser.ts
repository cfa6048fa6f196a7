import type { NestExpressApplication, NestExpressBodyParserOptionsFor } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { INVALID_UTF8_TYPE, verifyUtf8 } from './http-guards';

/**
 * Mounts a JSON body parser on `app` that refuses a body that is not UTF-8 (`verifyUtf8`; answered by
 * `onBodyParserError` as "invalid_utf8"), so that no HTTP surface stores U+FFFD in place of bad bytes. Nest's option
 * type leaves `verify` out because `rawBody: true` sets it; no FATHOM service uses rawBody, so ours reaches the parser.
 */
export function useJsonBodyParser(app: NestExpressApplication, options: NestExpressBodyParserOptionsFor<'json'>): void {
  app.useBodyParser('json', { ...options, verify: verifyUtf8 } as NestExpressBodyParserOptionsFor<'json'>);
}

/**
 * Why a request body could not be read: over the size limit, bytes that are not UTF-8 (with `verifyUtf8` as the
 * parser's `verify` option), JSON that does not parse, or anything else.
 */
export interface BodyParserFailure {
  kind: 'too_large' | 'invalid_utf8' | 'invalid_json' | 'unreadable';
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
        : err.type === INVALID_UTF8_TYPE
          ? { kind: 'invalid_utf8', message: 'request body is not valid UTF-8' }
          : err.type === 'entity.parse.failed'
            ? { kind: 'invalid_json', message: `request body is not valid JSON: ${err.message}` }
            : { kind: 'unreadable', message: `request body could not be read: ${err.message}` };
    answer(failure, req, res);
  };
}
