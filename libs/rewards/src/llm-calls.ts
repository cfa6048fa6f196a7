import { parse, type Node, type Options } from 'acorn';

/** The static count of `llm()` calls in one piece of code. */
export interface StaticCallCount {
  /** Call expressions whose callee is `llm`, `<anything>.llm` or `<anything>['llm']`, optional calls included. */
  calls: number;
  /**
   * 'ast' when acorn parsed the code (or the code cannot name `llm` at all); 'fallback' when acorn failed
   * and the tolerant scanner counted instead.
   */
  method: 'ast' | 'fallback';
}

const LLM = 'llm';

/** REPL code is a script that may `await` and `return` at top level. */
const PARSE_OPTIONS: Options = {
  ecmaVersion: 'latest',
  sourceType: 'script',
  allowAwaitOutsideFunction: true,
  allowReturnOutsideFunction: true,
  allowHashBang: true,
};

/**
 * Count `llm(` call expressions in code without running it. Comments and string literals never count
 * (a real parser sees them for what they are); template-literal substitutions (`${llm(q)}`) do.
 *
 * This is a static lower bound: a call inside a loop counts once. Training always has the executed
 * record; this serves completions scored offline. Code acorn cannot parse (a turn cut off mid-statement,
 * a syntax error) is counted by a small scanner that blanks comments, strings and regex literals and
 * then matches `llm(` at identifier boundaries.
 */
export function countLlmCallsStatic(code: string): StaticCallCount {
  // Code that neither spells `llm` nor holds a unicode escape (`\u006clm`) cannot call it: skip the parse.
  if (!code.includes(LLM) && !code.includes('\\u')) return { calls: 0, method: 'ast' };
  let program: Node;
  try {
    program = parse(code, PARSE_OPTIONS);
  } catch {
    return { calls: countLlmCallsFallback(code), method: 'fallback' };
  }
  return { calls: countCallsInTree(program as AnyNode), method: 'ast' };
}

type AnyNode = Node & Record<string, unknown>;

function isNode(value: unknown): value is AnyNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function isLlmCallee(callee: unknown): boolean {
  if (!isNode(callee)) return false;
  if (callee.type === 'Identifier') return callee.name === LLM;
  if (callee.type === 'MemberExpression') {
    const property = callee.property;
    if (!isNode(property)) return false;
    return callee.computed
      ? property.type === 'Literal' && property.value === LLM
      : property.type === 'Identifier' && property.name === LLM;
  }
  return false;
}

/** Iterative walk over every child node (acorn has no walker of its own; acorn-walk is not a dependency). */
function countCallsInTree(root: AnyNode): number {
  let calls = 0;
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (node.type === 'CallExpression' && isLlmCallee(node.callee)) calls++;
    for (const key in node) {
      const value = node[key];
      if (Array.isArray(value)) {
        for (const item of value) if (isNode(item)) stack.push(item);
      } else if (isNode(value)) {
        stack.push(value);
      }
    }
  }
  return calls;
}

/** After one of these (or at the start), a '/' opens a regex literal rather than dividing. */
const REGEX_PRECEDERS = new Set([
  '',
  '(',
  ',',
  '=',
  ':',
  '[',
  '!',
  '&',
  '|',
  '?',
  '{',
  '}',
  ';',
  '+',
  '-',
  '*',
  '%',
  '<',
  '>',
  '~',
  '^',
]);
const REGEX_PRECEDING_KEYWORDS = /(?:^|[^\w$])(?:return|typeof|case|do|else|in|of|void|yield|await)$/;
const IDENTIFIER_CHAR = /[\w$]/;

/**
 * Replace comments, string literals, template text and regex literals by spaces, keeping code and
 * template substitutions. Tolerates anything: an unterminated literal blanks to the end of the text.
 */
export function blankNonCode(code: string): string {
  const out: string[] = [];
  const n = code.length;
  // Brace depths at which an open template literal resumes after a `${ … }` substitution.
  const templateResume: number[] = [];
  let braceDepth = 0;
  let lastSignificant = '';
  let codeStart = 0;
  let i = 0;

  const skipTemplateText = (from: number): number => {
    let j = from;
    while (j < n) {
      const ch = code[j];
      if (ch === '\\') j += 2;
      else if (ch === '`') return j + 1;
      else if (ch === '$' && code[j + 1] === '{') {
        templateResume.push(++braceDepth);
        return j + 2;
      } else j++;
    }
    return n;
  };

  while (i < n) {
    const ch = code[i];
    const next = code[i + 1];
    let skipTo = -1;
    if (ch === '/' && next === '/') {
      const eol = code.indexOf('\n', i);
      skipTo = eol === -1 ? n : eol;
    } else if (ch === '/' && next === '*') {
      const end = code.indexOf('*/', i + 2);
      skipTo = end === -1 ? n : end + 2;
    } else if (ch === '"' || ch === "'") {
      let j = i + 1;
      while (j < n && code[j] !== ch && code[j] !== '\n') j += code[j] === '\\' ? 2 : 1;
      skipTo = Math.min(j + 1, n);
    } else if (ch === '`') {
      skipTo = skipTemplateText(i + 1);
    } else if (ch === '}' && templateResume.length > 0 && templateResume[templateResume.length - 1] === braceDepth) {
      templateResume.pop();
      braceDepth--;
      skipTo = skipTemplateText(i + 1);
    } else if (
      ch === '/' &&
      (REGEX_PRECEDERS.has(lastSignificant) ||
        (lastSignificant === 'word' &&
          REGEX_PRECEDING_KEYWORDS.test(code.slice(Math.max(codeStart, i - 12), i).trimEnd())))
    ) {
      let j = i + 1;
      let inClass = false;
      while (j < n && code[j] !== '\n') {
        const c = code[j];
        if (c === '\\') j++;
        else if (c === '[') inClass = true;
        else if (c === ']') inClass = false;
        else if (c === '/' && !inClass) break;
        j++;
      }
      skipTo = Math.min(j + 1, n);
    }
    if (skipTo !== -1) {
      out.push(code.slice(codeStart, i), ' ');
      i = skipTo;
      codeStart = i;
      lastSignificant = ch === '/' && (next === '/' || next === '*') ? lastSignificant : 'literal';
      continue;
    }
    if (ch === '{') braceDepth++;
    else if (ch === '}') braceDepth--;
    if (!/\s/.test(ch)) lastSignificant = IDENTIFIER_CHAR.test(ch) ? 'word' : ch;
    i++;
  }
  out.push(code.slice(codeStart));
  return out.join('');
}

/** `llm(` / `llm (` / `llm?.(` at an identifier boundary, not a declaration `function llm(`. */
const LLM_CALL_RE = /(?<![\w$])(?<!function\s*)llm\s*(?:\?\.\s*)?\(/g;

export function countLlmCallsFallback(code: string): number {
  return blankNonCode(code).match(LLM_CALL_RE)?.length ?? 0;
}
