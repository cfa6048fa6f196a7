/**
 * Completion parsing: what a model turn asks the environment to do.
 *
 * Code: fenced blocks tagged ```js, ```javascript, ```repl (any case), or bare ```. Blocks with another tag
 * (```python, ```text …) are prose and never run. A fence may be longer than three backticks and is closed by
 * a line of at least as many; an unclosed fence at the end of the text runs to the end (a stop sequence
 * may have eaten the closing fence). All runnable blocks of a turn are joined, in order, into one cell.
 *
 * Answer: the first `<answer>…</answer>` outside code blocks, trimmed; an unclosed `<answer>` at the end
 * of the text runs to the end (a stop sequence may have eaten `</answer>`). Tags are case-insensitive.
 */

export const RUNNABLE_LANGUAGES: readonly string[] = ['', 'js', 'javascript', 'repl'];

export interface CodeBlock {
  /** The fence's info string, lower-cased ('' for a bare fence). */
  lang: string;
  code: string;
  /** Offsets of the whole block (fences included) in the completion. */
  start: number;
  end: number;
  closed: boolean;
}

export interface ParsedCompletion {
  /** Every fenced block, runnable or not, in order. */
  blocks: CodeBlock[];
  /** The runnable blocks joined by newlines; null if there is none with non-blank code. */
  code: string | null;
  /** The final answer; null if the turn gives none. */
  answer: string | null;
}

const FENCE_OPEN = /^ {0,3}(`{3,})[ \t]*([^`\s]*)[^`\n]*$/;

export function findCodeBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = text.split('\n');
  let offset = 0;
  let open: { fence: string; lang: string; start: number; bodyStart: number } | null = null;
  for (const line of lines) {
    const lineEnd = offset + line.length;
    if (open === null) {
      const match = FENCE_OPEN.exec(line);
      if (match)
        open = {
          fence: match[1],
          lang: match[2].toLowerCase(),
          start: offset,
          bodyStart: Math.min(lineEnd + 1, text.length),
        };
    } else if (new RegExp(`^ {0,3}${open.fence}\`*[ \\t\\r]*$`).test(line)) {
      blocks.push({
        lang: open.lang,
        code: text.slice(open.bodyStart, Math.max(open.bodyStart, offset - 1)),
        start: open.start,
        end: lineEnd,
        closed: true,
      });
      open = null;
    }
    offset = lineEnd + 1;
  }
  if (open !== null) {
    blocks.push({
      lang: open.lang,
      code: text.slice(open.bodyStart),
      start: open.start,
      end: text.length,
      closed: false,
    });
  }
  return blocks;
}

export function findAnswer(text: string, blocks: CodeBlock[] = findCodeBlocks(text)): string | null {
  // Blank out code so an `<answer>` inside a string literal of a program is not taken as the final answer.
  let prose = text;
  for (const block of blocks)
    prose = prose.slice(0, block.start) + ' '.repeat(block.end - block.start) + prose.slice(block.end);
  const open = /<answer>/i.exec(prose);
  if (!open) return null;
  const bodyStart = open.index + open[0].length;
  const close = /<\/answer>/i.exec(prose.slice(bodyStart));
  return text.slice(bodyStart, close ? bodyStart + close.index : text.length).trim();
}

export function parseCompletion(text: string): ParsedCompletion {
  const blocks = findCodeBlocks(text);
  const runnable = blocks.filter((b) => RUNNABLE_LANGUAGES.includes(b.lang) && b.code.trim() !== '');
  return {
    blocks,
    code: runnable.length === 0 ? null : runnable.map((b) => b.code).join('\n'),
    answer: findAnswer(text, blocks),
  };
}
