/**
 * Guest-side setup, evaluated once in every fresh context before any guest code. It evaluates to a function
 * that takes the host's llm bridge (a Reference, kept only in this closure so guest code can never reach it)
 * and returns `[step, drain]`, the only two entry points the worker calls. `drain` returns
 * `[stdout, cutChars, variableNames, answer]`, where answer is the text of the cell's first `answer(value)` call or
 * null.
 *
 * Every builtin these entry points use is captured here, before guest code runs, so a guest that replaces
 * `String.prototype.slice` or `Object.getOwnPropertyNames` can garble only its own output — never make a
 * result unbounded. Whatever comes back is still validated by the worker.
 *
 * llm bridge results are tagged strings: 'o' + text, 'l' + message (cap reached), 'e' + message (failure).
 */
export const GUEST_PRELUDE = String.raw`(function (llmBridge) {
  'use strict';
  const g = globalThis;
  const indirectEval = eval;
  const apply = Reflect.apply;
  const getNames = Object.getOwnPropertyNames;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const stringify = JSON.stringify;
  const toStr = String;
  const slice = String.prototype.slice;
  const charAt = String.prototype.charAt;
  const ErrorCtor = Error;
  const weakHas = WeakSet.prototype.has;
  const weakAdd = WeakSet.prototype.add;
  const limitErrors = new WeakSet();
  const MAX_ERROR_CHARS = 2000;
  const MAX_VARIABLES = 100;
  const MAX_NAME_CHARS = 80;

  delete g.WebAssembly;
  delete g.SharedArrayBuffer;
  delete g.Atomics;

  let out = '';
  let cut = 0;
  let outLimit = 0;
  // The value passed to answer() in this step, as text; null when the step has not answered.
  let final = null;

  function fmt(value) {
    if (typeof value === 'string') return value;
    try {
      if (value === undefined) return 'undefined';
      if (typeof value === 'function') return '[Function ' + toStr(value.name || 'anonymous') + ']';
      if (typeof value === 'bigint' || typeof value === 'symbol') return toStr(value);
      const json = stringify(value);
      return json === undefined ? toStr(value) : json;
    } catch (e) {
      try { return toStr(value); } catch (e2) { return '[unprintable]'; }
    }
  }

  function print(...args) {
    let line = '';
    for (let i = 0; i < args.length; i++) line += (i === 0 ? '' : ' ') + fmt(args[i]);
    line += '\n';
    const room = outLimit - out.length;
    if (line.length <= room) { out += line; return; }
    if (room > 0) out += apply(slice, line, [0, room]);
    cut += line.length - (room > 0 ? room : 0);
  }

  // Ends the episode with value as the final answer once this cell has run; the first call of a cell wins.
  function answer(value) {
    if (final === null) final = fmt(value);
  }

  class LlmError extends ErrorCtor {}
  defineProperty(LlmError.prototype, 'name', { value: 'LlmError' });

  function llm(prompt, chunk) {
    const p = typeof prompt === 'string' ? prompt : fmt(prompt);
    const c = chunk === undefined || chunk === null ? undefined : typeof chunk === 'string' ? chunk : fmt(chunk);
    const reply = llmBridge.applySyncPromise(undefined, [p, c]);
    const tag = apply(charAt, reply, [0]);
    const body = apply(slice, reply, [1]);
    if (tag === 'o') return body;
    const error = new LlmError(body);
    if (tag === 'l') apply(weakAdd, limitErrors, [error]);
    throw error;
  }

  const console = freeze({ log: print, info: print, warn: print, error: print, debug: print });
  for (const [name, value] of [['print', print], ['llm', llm], ['answer', answer], ['console', console]]) {
    defineProperty(g, name, { value, writable: true, configurable: true, enumerable: false });
  }

  const builtins = Object.create(null);
  const initial = getNames(g);
  for (let i = 0; i < initial.length; i++) builtins[initial[i]] = true;
  builtins.ctx = true;
  builtins.question = true;

  function describe(error) {
    let text;
    try {
      if (error instanceof ErrorCtor) text = toStr(error.name) + ': ' + toStr(error.message);
      else text = 'Uncaught ' + fmt(error);
    } catch (e) {
      text = 'Uncaught exception (unprintable)';
    }
    return text.length > MAX_ERROR_CHARS ? apply(slice, text, [0, MAX_ERROR_CHARS]) + '…' : text;
  }

  // Returns [errorKind, message]: 0 = none, 1 = runtime error, 2 = llm() cap reached and not caught.
  function step(code, maxOutputChars) {
    out = '';
    cut = 0;
    final = null;
    outLimit = maxOutputChars;
    try {
      indirectEval(code);
      return [0, ''];
    } catch (error) {
      let isLimit = false;
      try { isLimit = apply(weakHas, limitErrors, [error]); } catch (e) { isLimit = false; }
      return [isLimit ? 2 : 1, describe(error)];
    }
  }

  // Called after the step's microtasks have run, so output printed by promise callbacks is included.
  function drain() {
    const names = getNames(g);
    let vars = '';
    let count = 0;
    for (let i = 0; i < names.length && count < MAX_VARIABLES; i++) {
      const name = names[i];
      if (builtins[name] === true) continue;
      const shown = name.length > MAX_NAME_CHARS ? apply(slice, name, [0, MAX_NAME_CHARS]) + '…' : name;
      vars += (count === 0 ? '' : '\n') + shown;
      count++;
    }
    const result = [out, cut, vars, final];
    out = '';
    cut = 0;
    final = null;
    return result;
  }

  return [step, drain];
})`;
