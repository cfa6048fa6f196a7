import { escapeRegExp } from '@fathom/contracts';
import { DEFAULT_READER_WINDOW_CHARS } from '../subcall';

/**
 * Code phrasings of the teacher. A strategy is one algorithm; the style drawn for each (task, strategy) decides
 * how its program reads — variable names, which REPL helper finds the key's sentences (`grep`, a whole-word
 * `grep(/…/i)`, `sentences().filter`, `ctx.split`), how the reading loop is shaped, whether a reader function is
 * defined, whether a first cell looks before reading — so no single program text per type can be memorised, while
 * every keyword, literal and call is one the policy can learn to write.
 */
export interface CodeStyle {
  /** Sentences holding the key (string[]). */
  hits: string;
  /** One window of sentences handed to llm(). */
  part: string;
  /** A reader's answer. */
  value: string;
  /** Loop variable over keys. */
  item: string;
  /** Running total (multi_needle) or count (counting). */
  total: string;
  /** Name of the reader function, when one is defined. */
  reader: string;
  search: 'grep' | 'grep_word' | 'sentences' | 'split';
  /** How windows are read until one answers: a for-of with break, an index loop, or map-then-find. */
  loop: 'for_break' | 'index' | 'find';
  /**
   * Window size passed to chunks(), never above the reader window. Small windows split a key's sentences over several
   * reads, so some come back "unknown" and the loop moves on — the reason the loop is there.
   */
  window: number;
  joiner: '\n' | ' ';
  /** Define a reader function even where one inline read would do. */
  helper: boolean;
  /** Look first: a cell that prints what the search found, then a cell that reads and answers. */
  look: boolean;
  /** Sum or count with a for-loop (true) or map/reduce/filter (false). */
  forLoop: boolean;
}

const NAMES = {
  hits: ['hits', 'found', 'lines', 'sents', 'mentions', 'matches'],
  part: ['part', 'piece', 'chunk', 'block', 'window'],
  value: ['a', 'ans', 'result', 'reply', 'val', 'got'],
  item: ['item', 'k', 'name', 'thing', 'key'],
  total: ['total', 'sum', 'n', 'acc', 'count'],
  reader: ['read', 'ask', 'lookUp', 'readAbout', 'find'],
} as const;

/** Window sizes drawn; `WHOLE_WINDOWS` are those that have always held every sentence of a key on generated tasks. */
const WINDOWS = [DEFAULT_READER_WINDOW_CHARS, 900, 800, 500, 300] as const;
export const WHOLE_WINDOWS: readonly number[] = WINDOWS.filter((w) => w >= 800);

const pick = <T>(options: readonly T[], uniform: () => number): T =>
  options[Math.min(options.length - 1, Math.floor(uniform() * options.length))];

/** A style drawn from `uniform` (numbers in [0, 1)); names never collide with each other or REPL globals. */
export function drawStyle(uniform: () => number): CodeStyle {
  const taken = new Set<string>();
  const name = (options: readonly string[]): string => {
    const free = options.filter((o) => !taken.has(o));
    const chosen = pick(free, uniform);
    taken.add(chosen);
    return chosen;
  };
  return {
    hits: name(NAMES.hits),
    part: name(NAMES.part),
    value: name(NAMES.value),
    item: name(NAMES.item),
    total: name(NAMES.total),
    reader: name(NAMES.reader),
    search: pick(['grep', 'grep_word', 'sentences', 'split'] as const, uniform),
    loop: pick(['for_break', 'index', 'find'] as const, uniform),
    window: pick(WINDOWS, uniform),
    joiner: pick(['\n', ' '] as const, uniform),
    helper: uniform() < 0.5,
    look: uniform() < 0.3,
    forLoop: uniform() < 0.5,
  };
}

/** A string literal of `text` (JSON-escaped, so quotes and backslashes in a key stay code). */
export const lit = (text: string): string => JSON.stringify(text);

/** A key in code: a literal copied from the question, or a variable computed at run time. */
export type KeyRef = { literal: string } | { variable: string };

const keyText = (key: KeyRef): string => ('literal' in key ? lit(key.literal) : key.variable);

/**
 * A whole-word pattern is only sound for a literal whose ends are word characters (`\b` next to a hyphen or a
 * quote means something else), so other keys fall back to substring grep.
 */
const wordSafe = (key: KeyRef): key is { literal: string } => 'literal' in key && /^\w(.*\w)?$/.test(key.literal);

/** An expression: the sentences of `ctx` that name `key`, as strings, by the style's search. */
export function sentencesWith(style: CodeStyle, key: KeyRef): string {
  const k = keyText(key);
  switch (style.search) {
    case 'grep_word':
      if (wordSafe(key)) return `grep(/\\b${escapeRegExp(key.literal)}\\b/i).map((h) => h.text)`;
      return `grep(${k}).map((h) => h.text)`;
    case 'grep':
      return `grep(${k}).map((h) => h.text)`;
    case 'sentences':
      return `sentences().filter((s) => s.text.includes(${k})).map((s) => s.text)`;
    case 'split':
      return `ctx.split(/(?<=[.!?])\\s+/).filter((s) => s.includes(${k}))`;
  }
}

const windowsOf = (style: CodeStyle, hits: string): string =>
  `chunks(${style.window}, { text: ${hits}.join(${lit(style.joiner)}) })`;

/**
 * Statements, inside a function body, that read the windows of `hits` with question expression `q` and return the
 * first answer that is not "unknown" (or "unknown").
 */
function readReturning(style: CodeStyle, q: string, hits: string): string[] {
  const { part, value } = style;
  switch (style.loop) {
    case 'for_break':
      return [
        `for (const ${part} of ${windowsOf(style, hits)}) {`,
        `  const ${value} = llm(${q}, ${part});`,
        `  if (${value} !== 'unknown') return ${value};`,
        `}`,
        `return 'unknown';`,
      ];
    case 'index':
      return [
        `const parts = ${windowsOf(style, hits)};`,
        `let ${value} = 'unknown';`,
        `for (let i = 0; ${value} === 'unknown' && i < parts.length; i++) ${value} = llm(${q}, parts[i]);`,
        `return ${value};`,
      ];
    case 'find':
      return [
        `const answers = ${windowsOf(style, hits)}.map((${part}) => llm(${q}, ${part}));`,
        `return answers.find((x) => x !== 'unknown') || 'unknown';`,
      ];
  }
}

/**
 * Top-level statements that leave in `style.value` the first non-"unknown" reading of `windows`, an expression of the
 * texts to read.
 */
function readInline(style: CodeStyle, q: string, windows: string): string[] {
  const { part, value } = style;
  switch (style.loop) {
    case 'for_break':
      return [
        `let ${value} = 'unknown';`,
        `for (const ${part} of ${windows}) {`,
        `  ${value} = llm(${q}, ${part});`,
        `  if (${value} !== 'unknown') break;`,
        `}`,
      ];
    case 'index':
      return [
        `const parts = ${windows};`,
        `let ${value} = 'unknown';`,
        `for (let i = 0; ${value} === 'unknown' && i < parts.length; i++) ${value} = llm(${q}, parts[i]);`,
      ];
    case 'find':
      return [
        `const answers = ${windows}.map((${part}) => llm(${q}, ${part}));`,
        `const ${value} = answers.find((x) => x !== 'unknown') || 'unknown';`,
      ];
  }
}

const indent = (lines: readonly string[]): string[] => lines.map((l) => `  ${l}`);

/** A reader function `reader(q, key)`: greps the key's sentences and reads them window by window with llm(). */
export function readerFunction(style: CodeStyle): string {
  const search = { ...style, search: style.search === 'grep_word' ? ('grep' as const) : style.search };
  return [
    `function ${style.reader}(q, ${style.item}) {`,
    `  const ${style.hits} = ${sentencesWith(search, { variable: style.item })};`,
    ...indent(readReturning(style, 'q', style.hits)),
    `}`,
  ].join('\n');
}

/** A cell that prints how many sentences `style.hits` holds and the first two: the look before a read. */
const lookCell = (style: CodeStyle): string =>
  `print(${style.hits}.length + ' sentences');\nprint(${style.hits}.slice(0, 2).join('\\n'));`;

/**
 * Cells that run `find` (a statement that fills `style.hits`), read `windows` (by default the hits window by window)
 * with the question expression `q` and answer the first reading that is not "unknown": one cell, or a look cell then
 * the read.
 */
function findAndReadCells(style: CodeStyle, find: string, q: string, windows = windowsOf(style, style.hits)): string[] {
  const read = [...readInline(style, q, windows), `answer(${style.value});`].join('\n');
  return style.look ? [`${find}\n${lookCell(style)}`, read] : [`${find}\n${read}`];
}

/**
 * Cells that read `key`'s sentences with the question expression `q` (e.g. `question`) and answer what the reader
 * says: inline or through a reader function, with or without a first cell that looks at what the search found.
 */
export function readAndAnswerCells(style: CodeStyle, q: string, key: string): string[] {
  const find = `const ${style.hits} = ${sentencesWith(style, { literal: key })};`;
  if (!style.helper) return findAndReadCells(style, find, q);
  const define = readerFunction(style);
  const call = `answer(${style.reader}(${q}, ${lit(key)}));`;
  return style.look ? [`${find}\n${lookCell(style)}`, `${define}\n${call}`] : [`${define}\n${call}`];
}

/** An expression: a whole-word pattern (`\b` on both sides) of the string held by the variable `variable`. */
export const wholeWordRegExp = (variable: string, flags = ''): string =>
  `new RegExp('\\\\b' + ${variable} + '\\\\b'${flags === '' ? '' : `, '${flags}'`})`;

/** A statement that fills `name` with the sentences `search(query)` finds, in document order, as strings. */
export const searchStatement = (name: string, query: string): string =>
  `const ${name} = search(${query}).sort((a, b) => a.start - b.start).map((h) => h.text);`;

/**
 * Lines that find the sentences `search(query)` finds (into `style.hits`) and read their windows in document order
 * with the question expression `q` (a for-of that breaks), leaving the first reading that is not "unknown" in
 * `style.value`.
 */
export function searchAndReadLines(style: CodeStyle, query: string, q: string): string[] {
  return [
    searchStatement(style.hits, query),
    ...readInline({ ...style, loop: 'for_break' }, q, windowsOf(style, style.hits)),
  ];
}

/**
 * Cells that find the sentences of the question's key with `search(question)` — nothing copied from the question —
 * and read their windows in document order with the question, answering the first reading that is not "unknown";
 * with or without a first cell that looks at what the search found. A window holds several of the key's sentences,
 * so a read decides which of them states the fact (a negated, hypothetical, reported or superseded sentence, or one
 * about a near-duplicate entity, does not), and a fact no single sentence states, such as a final place that takes
 * every move, is read whole. The same program reads any one-key question, so what it gets right depends on the reader
 * alone.
 */
export function searchAndReadCells(style: CodeStyle): string[] {
  return findAndReadCells(style, searchStatement(style.hits, 'question'), 'question');
}

/**
 * A question template with `{0}`, `{1}`, … as a string expression over the variables `vars` (the answers of earlier
 * reads), e.g. "In which city does {0} live?" with ["owner"] → `"In which city does " + owner + " live?"`.
 */
export function templateExpression(template: string, vars: readonly string[]): string {
  const parts = template.split(/\{(\d+)\}/);
  const terms: string[] = [];
  parts.forEach((part, i) => {
    if (i % 2 === 1) terms.push(vars[Number(part)]);
    else if (part !== '') terms.push(lit(part));
  });
  return terms.join(' + ');
}
