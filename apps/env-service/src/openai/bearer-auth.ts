import type { NextFunction, Request, Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { OpenAiError, sendOpenAiError } from './openai.errors';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Bearer-token auth of the OpenAI-compatible API (every /v1 route), as the admin-api does it: mounted before the body
 * parser, so an unauthenticated client cannot make the service parse a large body, and tokens compared as SHA-256
 * digests in constant time. Without a token configured it lets everything through.
 */
export function bearerAuth(token: string | undefined) {
  const expected = token === undefined ? undefined : digest(token);
  return (req: Request, res: Response, next: NextFunction) => {
    if (expected === undefined) return next();
    const header = req.headers.authorization;
    const presented = header === undefined ? undefined : /^Bearer +(\S+)$/i.exec(header)?.[1];
    if (presented !== undefined && timingSafeEqual(digest(presented), expected)) return next();
    const message =
      header === undefined
        ? 'missing Authorization header; send "Authorization: Bearer <API_TOKEN>"'
        : presented === undefined
          ? 'Authorization header is not of the form "Bearer <token>"'
          : 'invalid bearer token';
    sendOpenAiError(res, new OpenAiError('invalid_api_key', message));
  };
}
