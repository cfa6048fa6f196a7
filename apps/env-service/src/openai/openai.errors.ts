import { HttpException } from '@nestjs/common';
import type { Response } from 'express';
import { EnvError } from '../errors';

/** Every failure the OpenAI-compatible API (/v1) answers with; `error.code` of the reply. */
export const OPENAI_ERROR_CODES = [
  'invalid_json',
  'invalid_request',
  'unsupported_parameter',
  'model_not_found',
  'not_found',
  'invalid_api_key',
  'document_too_large',
  'request_too_large',
  'capacity_reached',
  'episode_failed',
  'internal_error',
] as const;
export type OpenAiErrorCode = (typeof OPENAI_ERROR_CODES)[number];

/** OpenAI's `error.type` values used here. */
export const OPENAI_ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'rate_limit_error',
  'server_error',
] as const;
export type OpenAiErrorType = (typeof OPENAI_ERROR_TYPES)[number];

/** A failure of a /v1 request; `param` names the request field at fault (OpenAI's `error.param`), when one is. */
export class OpenAiError extends Error {
  constructor(
    readonly code: OpenAiErrorCode,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'OpenAiError';
  }
}

export function openAiStatusOf(code: OpenAiErrorCode): number {
  switch (code) {
    case 'invalid_json':
    case 'invalid_request':
    case 'unsupported_parameter':
      return 400;
    case 'invalid_api_key':
      return 401;
    case 'model_not_found':
    case 'not_found':
      return 404;
    case 'document_too_large':
    case 'request_too_large':
      return 413;
    case 'capacity_reached':
      return 429;
    case 'episode_failed':
      return 502;
    case 'internal_error':
      return 500;
  }
}

export function openAiTypeOf(code: OpenAiErrorCode): OpenAiErrorType {
  switch (code) {
    case 'invalid_json':
    case 'invalid_request':
    case 'unsupported_parameter':
    case 'model_not_found':
    case 'not_found':
    case 'document_too_large':
    case 'request_too_large':
      return 'invalid_request_error';
    case 'invalid_api_key':
      return 'authentication_error';
    case 'capacity_reached':
      return 'rate_limit_error';
    case 'episode_failed':
    case 'internal_error':
      return 'server_error';
  }
}

/** OpenAI's error body: `{error: {message, type, param, code}}`. */
export interface OpenAiErrorBody {
  error: { message: string; type: OpenAiErrorType; param: string | null; code: OpenAiErrorCode };
}

export function openAiErrorBody(error: OpenAiError): OpenAiErrorBody {
  return { error: { message: error.message, type: openAiTypeOf(error.code), param: error.param, code: error.code } };
}

/** Anything thrown under /v1 as an OpenAiError: the service's EnvErrors (capacity, body limits) keep their meaning. */
export function toOpenAiError(error: unknown): OpenAiError {
  if (error instanceof OpenAiError) return error;
  if (error instanceof EnvError) {
    switch (error.code) {
      case 'CAPACITY_REACHED':
        return new OpenAiError('capacity_reached', error.message);
      case 'PAYLOAD_TOO_LARGE':
        return new OpenAiError('request_too_large', error.message);
      case 'INVALID_JSON':
        return new OpenAiError('invalid_json', error.message);
      case 'VALIDATION_ERROR':
        return new OpenAiError('invalid_request', error.message);
      default:
        return new OpenAiError('internal_error', error.message);
    }
  }
  if (error instanceof HttpException) {
    const code = error.getStatus() === 404 ? 'not_found' : 'invalid_request';
    return new OpenAiError(code, error.message);
  }
  return new OpenAiError('internal_error', `internal error: ${error instanceof Error ? error.message : String(error)}`);
}

/** Writes an OpenAiError as the HTTP reply; a 401 also names the scheme (WWW-Authenticate). */
export function sendOpenAiError(res: Response, error: OpenAiError): void {
  if (error.code === 'invalid_api_key') res.setHeader('WWW-Authenticate', 'Bearer');
  res.status(openAiStatusOf(error.code)).json(openAiErrorBody(error));
}
