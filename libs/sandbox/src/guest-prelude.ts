/**
 * Guest-side setup, evaluated once in every fresh context before any guest code. It evaluates to a function
 * that takes the host's llm bridge (a Reference, kept only in this closure so guest code can never reach it)
 * and returns `[step, drain]`, the only two entry points the worker calls. `drain` returns
 * `[stdout, cutChars, variableNames, answer, variableValues]`, where answer is the text of the cell's first
 * `answer(value)` call or null, and variableValues holds a short form of each variable's value (`snapshot`).
 *
 * Every builtin these entry points use is captured here, before guest code runs, so a guest that replaces
 * `String.prototype.slice` or `Object.getOwnPropertyNames` can garble only its own output — never make a
 * result unbounded. Whatever comes back is still validated by the worker.
 *
 * The bridge takes `(prompt, chunk, promptChars, chunkChars)`. A prompt or chunk over its size cap is never copied
 * out: the guest sends nulls and only the two lengths, and the worker refuses the call (and records it).
 * Its results are tagged strings: 'o' + text, 'l' + message (cap reached), 'e' + message (failure).
 *
 * The text helpers (`sentences`, `grep`, `chunks`, `search`) find sentence spans with one linear regex pass per document and
 * keep the spans of the last document they split, so repeated calls over `ctx` only scan for the pattern.
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
  const regexExec = RegExp.prototype.exec;
  const toLower = String.prototype.toLowerCase;
  const arraySort = Array.prototype.sort;
  const log = Math.log;
  const objectCreate = Object.create;
  const RegExpCtor = RegExp;
  const regexGetter = (name) => Object.getOwnPropertyDescriptor(RegExp.prototype, name)?.get;
  const regexSource = regexGetter('source');
  // Flags a copied pattern keeps; g, y and d are the helpers' own business.
  const keptFlags = [['i', 'ignoreCase'], ['m', 'multiline'], ['s', 'dotAll'], ['u', 'unicode'], ['v', 'unicodeSets']]
    .map(([letter, name]) => [letter, regexGetter(name)])
    .filter(([, getter]) => getter !== undefined);
  const objectKeys = Object.keys;
  const isInteger = Number.isInteger;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const weakHas = WeakSet.prototype.has;
  const weakAdd = WeakSet.prototype.add;
  const limitErrors = new WeakSet();
  const MAX_ERROR_CHARS = 2000;
  const MAX_VARIABLES = 100;
  const MAX_NAME_CHARS = 80;
  // A variable's value as drain shows it: at most this many characters, and an array by its first few items only.
  const MAX_VALUE_CHARS = 200;
  const VALUE_ITEMS = 5;
  const MAX_VALUE_SOURCE_CHARS = 1000000;
  const getDescriptor = Object.getOwnPropertyDescriptor;
  const isArray = Array.isArray;
  const arraySlice = Array.prototype.slice;

  delete g.WebAssembly;
  delete g.SharedArrayBuffer;
  delete g.Atomics;

  let out = '';
  let cut = 0;
  let outLimit = 0;
  let answerLimit = 0;
  let promptLimit = 0;
  let chunkLimit = 0;
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

  function tooLongAnswer(chars) {
    return new RangeErrorCtor(
      'answer() value of ' + chars + ' characters exceeds the limit of ' + answerLimit + ' characters (maxAnswerChars)',
    );
  }

  // Ends the episode with value as the final answer once this cell has run; the first accepted call of a cell wins.
  // A value over the cap throws and sets nothing, so the cell may catch the error and answer again.
  function answer(value) {
    if (final !== null) return;
    // A long string is refused before fmt, which would only hand it back.
    if (typeof value === 'string' && value.length > answerLimit) throw tooLongAnswer(value.length);
    const text = fmt(value);
    if (text.length > answerLimit) throw tooLongAnswer(text.length);
    final = text;
  }

  class LlmError extends ErrorCtor {}
  defineProperty(LlmError.prototype, 'name', { value: 'LlmError' });

  function llm(prompt, chunk) {
    const p = typeof prompt === 'string' ? prompt : fmt(prompt);
    const c = chunk === undefined || chunk === null ? undefined : typeof chunk === 'string' ? chunk : fmt(chunk);
    const promptChars = p.length;
    const chunkChars = c === undefined ? 0 : c.length;
    const fits = promptChars <= promptLimit && chunkChars <= chunkLimit;
    const args = fits ? [p, c, promptChars, chunkChars] : [null, null, promptChars, chunkChars];
    const reply = llmBridge.applySyncPromise(undefined, args);
    const tag = apply(charAt, reply, [0]);
    const body = apply(slice, reply, [1]);
    if (tag === 'o') return body;
    const error = new LlmError(body);
    if (tag === 'l') apply(weakAdd, limitErrors, [error]);
    throw error;
  }

  // A sentence ends at a run of . ! ? (plus closing quotes or brackets) followed by whitespace or the end, or at a
  // blank line. Each alternative starts with a plain character class (fast to scan for) and a lookbehind that
  // lets a run of . ! ? or of spaces be tried only from its first character, which keeps the scan linear. Both
  // swallow the whitespace after them, so the next sentence starts at a non-space character.
  const SENTENCE_BREAK =
    /([.!?](?<![.!?][.!?])[.!?]*["'\u201d\u2019)\]]*)(?:\s+|$)|(?:[^\S\n](?<![^\S\n][^\S\n])[^\S\n]*\n|\n(?<![^\S\n]\n))[^\S\n]*\n\s*/g;
  const FIRST_NON_SPACE = /\S/g;
  const SPACE_AT = /\s/y;
  const REGEX_SYNTAX = Object.create(null);
  for (const ch of '\\^$.*+?()[]{}|/-') REGEX_SYNTAX[ch] = true;
  let spansOf = null;
  let spansCache = null;

  function isSpaceAt(text, i) {
    SPACE_AT.lastIndex = i;
    return apply(regexExec, SPACE_AT, [text]) !== null;
  }

  // Sentence spans of text as two parallel arrays of offsets; sentences never include surrounding whitespace.
  function spans(text) {
    if (text === spansOf) return spansCache;
    const starts = [];
    const ends = [];
    let n = 0;
    FIRST_NON_SPACE.lastIndex = 0;
    const first = apply(regexExec, FIRST_NON_SPACE, [text]);
    let from = first === null ? text.length : first.index;
    SENTENCE_BREAK.lastIndex = from;
    let m;
    while ((m = apply(regexExec, SENTENCE_BREAK, [text])) !== null) {
      const end = m[1] === undefined ? m.index : m.index + m[1].length;
      if (end > from) {
        starts[n] = from;
        ends[n] = end;
        n++;
      }
      from = SENTENCE_BREAK.lastIndex;
    }
    let end = text.length;
    while (end > from && isSpaceAt(text, end - 1)) end--;
    if (end > from) {
      starts[n] = from;
      ends[n] = end;
      n++;
    }
    spansOf = text;
    spansCache = { starts, ends, n };
    return spansCache;
  }

  // Index of the first entry of sorted offsets that is greater than k (n when none is).
  function firstAbove(offsets, n, k) {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (offsets[mid] > k) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  function readOptions(fn, options, allowed) {
    if (options === undefined || options === null) return {};
    if (typeof options !== 'object') throw new TypeErrorCtor(fn + '() options must be an object');
    const keys = objectKeys(options);
    for (let i = 0; i < keys.length; i++) {
      let known = false;
      for (let j = 0; j < allowed.length; j++) if (keys[i] === allowed[j]) known = true;
      if (!known) {
        let list = '';
        for (let j = 0; j < allowed.length; j++) list += (j === 0 ? '' : ', ') + allowed[j];
        throw new TypeErrorCtor(fn + '() has no option "' + toStr(keys[i]) + '" (options: ' + list + ')');
      }
    }
    return options;
  }

  function textOption(fn, text) {
    const value = text === undefined ? g.ctx : text;
    if (typeof value !== 'string') throw new TypeErrorCtor(fn + '() text must be a string, got ' + typeof value);
    return value;
  }

  function countOption(fn, name, value, fallback, min) {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !isInteger(value) || value < min) {
      throw new RangeErrorCtor(fn + '() ' + name + ' must be an integer >= ' + min + ', got ' + fmt(value));
    }
    return value;
  }

  // The pattern as a fresh global RegExp of our own, so the guest's lastIndex and exec overrides play no part.
  function searchPattern(pattern) {
    if (typeof pattern === 'string') {
      let escaped = '';
      for (let i = 0; i < pattern.length; i++) {
        const ch = apply(charAt, pattern, [i]);
        escaped += REGEX_SYNTAX[ch] === true ? '\\' + ch : ch;
      }
      return new RegExpCtor(escaped, 'gi');
    }
    let source;
    try {
      source = apply(regexSource, pattern, []);
    } catch (e) {
      throw new TypeErrorCtor('grep() pattern must be a string or a RegExp, got ' + typeof pattern);
    }
    let flags = 'g';
    for (let i = 0; i < keptFlags.length; i++) {
      if (apply(keptFlags[i][1], pattern, []) === true) flags += keptFlags[i][0];
    }
    return new RegExpCtor(source, flags);
  }

  // The first offset in [from, to) that follows whitespace, looking at most 256 characters on; else from.
  function wordStartFrom(text, from, to) {
    const stop = from + 256 < to ? from + 256 : to;
    for (let i = from; i < stop; i++) if (isSpaceAt(text, i - 1) && !isSpaceAt(text, i)) return i;
    return from;
  }

  function sentences(text) {
    const value = textOption('sentences', text);
    const { starts, ends, n } = spans(value);
    const result = [];
    for (let i = 0; i < n; i++) {
      result[i] = { text: apply(slice, value, [starts[i], ends[i]]), start: starts[i], end: ends[i] };
    }
    return result;
  }

  function grep(pattern, options) {
    const o = readOptions('grep', options, ['text', 'window', 'limit']);
    const text = textOption('grep', o.text);
    const window = countOption('grep', 'window', o.window, 0, 0);
    const limit = countOption('grep', 'limit', o.limit, 50, 0);
    const re = searchPattern(pattern);
    const { starts, ends, n } = spans(text);
    const hits = [];
    let count = 0;
    re.lastIndex = 0;
    while (count < limit) {
      const m = apply(regexExec, re, [text]);
      if (m === null) break;
      // The sentence holding the match's start (or the next one, for a match in the space between two).
      const i = firstAbove(ends, n, m.index);
      if (i === n) break;
      const start = starts[i - window < 0 ? 0 : i - window];
      const end = ends[i + window >= n ? n - 1 : i + window];
      hits[count++] = { text: apply(slice, text, [start, end]), start, end };
      // Skip the rest of the sentence: one hit per sentence, and no empty match can stall the scan.
      re.lastIndex = ends[i];
    }
    return hits;
  }

  // A word for search(): a run of letters and digits in any script.
  const WORD = /[\p{L}\p{N}]+/gu;
  // English function words, which say nothing about what a question is about; search() skips them.
  const STOPWORDS = objectCreate(null);
  for (const word of (
    'a an the and or but if of in on at to by for from with as into onto about after before over under than then ' +
    'is are was were be been being am has have had do does did will would could should can may might must shall ' +
    'it its this that these those there here what which who whom whose where when why how ' +
    'i me my you your we our he him his she her they them their not no so all any each ever also just'
  ).split(' ')) {
    STOPWORDS[word] = true;
  }

  // The lower-case words of a query other than function words, in order, with repeats.
  function queryWords(query) {
    const words = [];
    let count = 0;
    WORD.lastIndex = 0;
    let m;
    while ((m = apply(regexExec, WORD, [query])) !== null) {
      const word = apply(toLower, m[0], []);
      if (STOPWORDS[word] !== true) words[count++] = word;
    }
    return words;
  }

  // The sentences of text holding a match of pattern (a source over words, matched whole and in any case), once each.
  function sentencesMatching(pattern, text, ends, n) {
    const re = new RegExpCtor('(?<![\\p{L}\\p{N}])' + pattern + '(?![\\p{L}\\p{N}])', 'giu');
    const holding = [];
    let count = 0;
    let m;
    while ((m = apply(regexExec, re, [text])) !== null) {
      const i = firstAbove(ends, n, m.index);
      if (i === n) break;
      holding[count++] = i;
      re.lastIndex = ends[i];
    }
    return holding;
  }

  // Ranks the sentences of text by the words of query, function words aside. Each distinct query word that a sentence
  // holds as a whole word (any case) adds that word's weight, log((n - df + 0.5) / (df + 0.5)) floored at 0 for a
  // text of n sentences of which df hold it — a name counts most, a word in half the sentences or more nothing —
  // and two query words that stand next to each other in the query and in the sentence (a name like "brass lamp")
  // add both weights again.
  function search(query, options) {
    if (typeof query !== 'string') throw new TypeErrorCtor('search() query must be a string, got ' + typeof query);
    const o = readOptions('search', options, ['text', 'limit']);
    const text = textOption('search', o.text);
    const limit = countOption('search', 'limit', o.limit, 20, 0);
    const words = queryWords(query);
    const { starts, ends, n } = spans(text);
    const scores = [];
    for (let i = 0; i < n; i++) scores[i] = 0;
    const weight = objectCreate(null);
    for (let w = 0; w < words.length; w++) {
      const word = words[w];
      if (weight[word] !== undefined) continue;
      const holding = sentencesMatching(word, text, ends, n);
      const idf = log((n - holding.length + 0.5) / (holding.length + 0.5));
      weight[word] = idf > 0 ? idf : 0;
      for (let j = 0; j < holding.length; j++) scores[holding[j]] += weight[word];
    }
    const paired = objectCreate(null);
    for (let w = 1; w < words.length; w++) {
      const pair = words[w - 1] + ' ' + words[w];
      const bonus = weight[words[w - 1]] + weight[words[w]];
      if (paired[pair] === true || weight[words[w - 1]] === 0 || weight[words[w]] === 0) continue;
      paired[pair] = true;
      const holding = sentencesMatching(words[w - 1] + '[^\\p{L}\\p{N}]{1,3}' + words[w], text, ends, n);
      for (let j = 0; j < holding.length; j++) scores[holding[j]] += bonus;
    }
    let best = 0;
    for (let i = 0; i < n; i++) if (scores[i] > best) best = scores[i];
    const ranked = [];
    let count = 0;
    for (let i = 0; i < n; i++) if (best > 0 && scores[i] >= best / 2) ranked[count++] = i;
    apply(arraySort, ranked, [(a, b) => scores[b] - scores[a] || a - b]);
    const hits = [];
    for (let k = 0; k < count && k < limit; k++) {
      const i = ranked[k];
      hits[k] = { text: apply(slice, text, [starts[i], ends[i]]), start: starts[i], end: ends[i], score: scores[i] };
    }
    return hits;
  }

  function chunks(size, options) {
    if (typeof size !== 'number' || !isInteger(size) || size < 1) {
      throw new RangeErrorCtor('chunks() size must be an integer >= 1, got ' + fmt(size));
    }
    const o = readOptions('chunks', options, ['text', 'overlap']);
    const text = textOption('chunks', o.text);
    const overlap = countOption('chunks', 'overlap', o.overlap, 0, 0);
    if (overlap >= size) throw new RangeErrorCtor('chunks() overlap must be smaller than size');
    const { starts, ends, n } = spans(text);
    const length = text.length;
    const pieces = [];
    let count = 0;
    let from = 0;
    while (from < length) {
      let to = length;
      if (length - from > size) {
        const limit = from + size;
        // The last sentence start or end within the piece; else the last whitespace near its end; else a hard cut.
        const startCut = starts[firstAbove(starts, n, limit) - 1];
        const endCut = ends[firstAbove(ends, n, limit) - 1];
        to = startCut > endCut || endCut === undefined ? startCut : endCut;
        if (to === undefined || to <= from) {
          to = limit;
          const floor = limit - 256 > from ? limit - 256 : from + 1;
          for (let i = limit; i >= floor; i--) {
            if (isSpaceAt(text, i - 1)) {
              to = i;
              break;
            }
          }
        }
      }
      pieces[count++] = apply(slice, text, [from, to]);
      if (to >= length) break;
      if (overlap === 0) {
        from = to;
      } else {
        // Back up by at most overlap characters, to a sentence start when one lies in that stretch, else to a
        // word start near its beginning, else exactly; with no room for that, the next piece starts at the cut.
        const back = to - overlap;
        const i = firstAbove(starts, n, back > from ? back - 1 : from);
        if (i < n && starts[i] < to) from = starts[i];
        else from = back > from ? wordStartFrom(text, back, to) : to;
      }
    }
    return pieces;
  }

  const console = freeze({ log: print, info: print, warn: print, error: print, debug: print });
  const globals = [
    ['print', print],
    ['llm', llm],
    ['answer', answer],
    ['console', console],
    ['sentences', sentences],
    ['grep', grep],
    ['chunks', chunks],
    ['search', search],
  ];
  for (const [name, value] of globals) {
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
  function step(code, maxOutputChars, maxAnswerChars, maxLlmPromptChars, maxLlmChunkChars) {
    out = '';
    cut = 0;
    final = null;
    outLimit = maxOutputChars;
    answerLimit = maxAnswerChars;
    promptLimit = maxLlmPromptChars;
    chunkLimit = maxLlmChunkChars;
    try {
      indirectEval(code);
      return [0, ''];
    } catch (error) {
      let isLimit = false;
      try { isLimit = apply(weakHas, limitErrors, [error]); } catch (e) { isLimit = false; }
      return [isLimit ? 2 : 1, describe(error)];
    }
  }

  // A variable's value, short: a string quoted and cut, an array as Array(n) and its first items, else as print
  // shows it; cut to MAX_VALUE_CHARS. An accessor is not called (its getter would be guest code run here).
  function snapshot(name) {
    try {
      const descriptor = getDescriptor(g, name);
      if (descriptor === undefined || !('value' in descriptor)) return '[accessor]';
      const value = descriptor.value;
      let text;
      // Slicing a string built by concatenation flattens it whole: past a megabyte only its length is shown.
      if (typeof value === 'string' && value.length > MAX_VALUE_SOURCE_CHARS)
        text = '[string of ' + value.length + ' characters]';
      else if (typeof value === 'string')
        text = stringify(value.length > MAX_VALUE_CHARS ? apply(slice, value, [0, MAX_VALUE_CHARS]) : value);
      else if (isArray(value))
        text = 'Array(' + value.length + ') ' + fmt(apply(arraySlice, value, [0, VALUE_ITEMS]));
      else text = fmt(value);
      text = toStr(text);
      return text.length > MAX_VALUE_CHARS ? apply(slice, text, [0, MAX_VALUE_CHARS]) + '…' : text;
    } catch (e) {
      return '[unprintable]';
    }
  }

  // Called after the step's microtasks have run, so output printed by promise callbacks is included.
  function drain() {
    const names = getNames(g);
    let vars = '';
    const values = [];
    for (let i = 0; i < names.length && values.length < MAX_VARIABLES; i++) {
      const name = names[i];
      if (builtins[name] === true) continue;
      const shown = name.length > MAX_NAME_CHARS ? apply(slice, name, [0, MAX_NAME_CHARS]) + '…' : name;
      vars += (values.length === 0 ? '' : '\n') + shown;
      defineProperty(values, values.length, { value: snapshot(name), writable: true, enumerable: true, configurable: true });
    }
    const result = [out, cut, vars, final, values];
    out = '';
    cut = 0;
    final = null;
    return result;
  }

  return [step, drain];
})`;
