import { checkBearerToken } from '@fathom/runtime';
import type { NextFunction, Request, Response } from 'express';
import { OpenAiError, sendOpenAiError } from './openai.errors';

/**
 * Bearer-token auth of the OpenAI-compatible API (every /v1 route), with the admin API's and the OpenEnv routes' one
 * check (`checkBearerToken`): mounted before the body parser, so an unauthenticated client cannot make the service
 * parse a large body. Without a token configured it lets everything through.
 */
export function bearerAuth(token: string | undefined) {
  const refusal = checkBearerToken(token, 'API_TOKEN');
  return (req: Request, res: Response, next: NextFunction) => {
    const message = refusal(req.headers.authorization);
    if (message === null) return next();
    sendOpenAiError(res, new OpenAiError('INVALID_API_KEY', message));
  };
}
