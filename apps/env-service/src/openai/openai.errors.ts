import { FathomError } from '@fathom/contracts';
import { HttpException } from '@nestjs/common';
import type { Response } from 'express';
import { EnvError } from '../errors';

/** Every failure the OpenAI-compatible API (/v1) answers with, as OpenAI spells it: `error.code` of the reply. */
export const OPENAI_WIRE_CODES = [
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
export type OpenAiWireCode = (typeof OPENAI_WIRE_CODES)[number];
/** The same codes in FATHOM's casing, which an OpenAiError carries; `openAiErrorBody` spells them OpenAI's way. */
export type OpenAiErrorCode = Uppercase<OpenAiWireCode>;

/** OpenAI's `error.type` values used here. */
export const OPENAI_ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'rate_limit_error',
  'server_error',
] as const;
export type OpenAiErrorType = (typeof OPENAI_ERROR_TYPES)[number];

/** A failure of a /v1 request; `param` names the request field at fault (OpenAI's `error.param`), when one is. */
export class OpenAiError extends FathomError<OpenAiErrorCode> {
  override readonly name = 'OpenAiError';
  constructor(
    code: OpenAiErrorCode,
    message: string,
    readonly param: string | null = null,
  ) {
    super(code, message);
  }
}

export function openAiStatusOf(code: OpenAiErrorCode): number {
  switch (code) {
    case 'INVALID_JSON':
    case 'INVALID_REQUEST':
    case 'UNSUPPORTED_PARAMETER':
      return 400;
    case 'INVALID_API_KEY':
      return 401;
    case 'MODEL_NOT_FOUND':
    case 'NOT_FOUND':
      return 404;
    case 'DOCUMENT_TOO_LARGE':
    case 'REQUEST_TOO_LARGE':
      return 413;
    case 'CAPACITY_REACHED':
      return 429;
    case 'EPISODE_FAILED':
      return 502;
    case 'INTERNAL_ERROR':
      return 500;
  }
}

export function openAiTypeOf(code: OpenAiErrorCode): OpenAiErrorType {
  switch (code) {
    case 'INVALID_JSON':
    case 'INVALID_REQUEST':
    case 'UNSUPPORTED_PARAMETER':
    case 'MODEL_NOT_FOUND':
    case 'NOT_FOUND':
    case 'DOCUMENT_TOO_LARGE':
    case 'REQUEST_TOO_LARGE':
      return 'invalid_request_error';
    case 'INVALID_API_KEY':
      return 'authentication_error';
    case 'CAPACITY_REACHED':
      return 'rate_limit_error';
    case 'EPISODE_FAILED':
    case 'INTERNAL_ERROR':
      return 'server_error';
  }
}

/** OpenAI's error body: `{error: {message, type, param, code}}`. */
export interface OpenAiErrorBody {
  error: { message: string; type: OpenAiErrorType; param: string | null; code: OpenAiWireCode };
}

export function openAiErrorBody(error: OpenAiError): OpenAiErrorBody {
  const code = error.code.toLowerCase() as OpenAiWireCode;
  return { error: { message: error.message, type: openAiTypeOf(error.code), param: error.param, code } };
}

/** Anything thrown under /v1 as an OpenAiError: the service's EnvErrors (capacity, body limits) keep their meaning. */
export function toOpenAiError(error: unknown): OpenAiError {
  if (error instanceof OpenAiError) return error;
  if (error instanceof EnvError) {
    switch (error.code) {
      case 'CAPACITY_REACHED':
        return new OpenAiError('CAPACITY_REACHED', error.message);
      case 'PAYLOAD_TOO_LARGE':
        return new OpenAiError('REQUEST_TOO_LARGE', error.message);
      case 'INVALID_JSON':
        return new OpenAiError('INVALID_JSON', error.message);
      case 'VALIDATION_ERROR':
        return new OpenAiError('INVALID_REQUEST', error.message);
      default:
        return new OpenAiError('INTERNAL_ERROR', error.message);
    }
  }
  if (error instanceof HttpException) {
    const code = error.getStatus() === 404 ? 'NOT_FOUND' : 'INVALID_REQUEST';
    return new OpenAiError(code, error.message);
  }
  return new OpenAiError('INTERNAL_ERROR', `internal error: ${error instanceof Error ? error.message : String(error)}`);
}

/** Writes an OpenAiError as the HTTP reply; a 401 also names the scheme (WWW-Authenticate). */
export function sendOpenAiError(res: Response, error: OpenAiError): void {
  if (error.code === 'INVALID_API_KEY') res.setHeader('WWW-Authenticate', 'Bearer');
  res.status(openAiStatusOf(error.code)).json(openAiErrorBody(error));
}
