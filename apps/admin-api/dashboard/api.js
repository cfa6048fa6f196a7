// @ts-check
/**
 * The admin API as the dashboard calls it: same origin, JSON, and the bearer token the user typed in once
 * (kept in sessionStorage, so it is gone when the tab closes).
 */

const TOKEN_KEY = 'fathom.adminToken';

/** An error answer of the API: `{code, message, details?}` with its HTTP status. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {unknown} [details]
   */
  constructor(status, code, message, details) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export function getToken() {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** @param {string | null} token */
export function setToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/**
 * Calls the API; resolves with the parsed JSON body, rejects with an ApiError (status 0 when the network failed).
 * @param {string} path
 * @param {{ method?: string, body?: unknown, signal?: AbortSignal }} [options]
 * @returns {Promise<any>}
 */
export async function api(path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  const token = getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, 'NETWORK', `the admin API did not answer ${path}: ${/** @type {Error} */ (error).message}`);
  }
  const text = await res.text();
  /** @type {any} */
  let body;
  try {
    body = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const message = body && typeof body.message === 'string' ? body.message : `${res.status} ${res.statusText}`;
    throw new ApiError(res.status, body?.code ?? 'HTTP', message, body?.details);
  }
  return body;
}
