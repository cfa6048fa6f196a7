export const ANSWER_OPEN_TAG = '<answer>';
export const ANSWER_CLOSE_TAG = '</answer>';

/** What `extractAnswer` found in one turn of text. */
export interface ExtractedAnswer {
  /** Content of the last complete `<answer>…</answer>` pair, trimmed; null when there is none. */
  answer: string | null;
  /** Number of `<answer>` opening tags in the text. */
  tagCount: number;
  /** Exactly one opening and one closing tag, in that order, with non-blank content. */
  wellFormed: boolean;
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** Blank means nothing visible: whitespace and invisible format characters (zero-width space, …) only. */
export function isBlank(text: string): boolean {
  return /^[\s\p{Cf}]*$/u.test(text);
}

/** An answer given through the REPL's `answer(value)`: one answer by construction, well-formed unless blank. */
export function replAnswer(value: string): ExtractedAnswer {
  const answer = value.trim();
  return { answer, tagCount: 0, wellFormed: !isBlank(answer) };
}

/**
 * Find the answer in a turn's text. Tags are exact and lower-case. With several tags only the last complete
 * pair is read (and the answer is not well-formed), so writing extra candidates in extra tags never helps.
 * An unclosed `<answer>` (a truncated turn) yields no answer. Linear in the text's length.
 */
export function extractAnswer(text: string): ExtractedAnswer {
  const tagCount = countOccurrences(text, ANSWER_OPEN_TAG);
  if (tagCount === 0) return { answer: null, tagCount, wellFormed: false };
  const close = text.lastIndexOf(ANSWER_CLOSE_TAG);
  const open = close === -1 ? -1 : text.lastIndexOf(ANSWER_OPEN_TAG, close);
  if (open === -1) return { answer: null, tagCount, wellFormed: false };
  const answer = text.slice(open + ANSWER_OPEN_TAG.length, close).trim();
  const wellFormed = tagCount === 1 && countOccurrences(text, ANSWER_CLOSE_TAG) === 1 && !isBlank(answer);
  return { answer, tagCount, wellFormed };
}

/** "Answer:" / "Final answer:" prefixes a model writes before an untagged answer. */
const ANSWER_PREFIX_RE = /^(?:final\s+)?answer\s*[:：]\s*/i;

const STRAY_TAG_RE = /<\/?answer>/g;

/**
 * The untagged fallback: the last non-blank line of the text, minus an "Answer:" prefix and stray answer tags
 * (an unclosed `<answer>` of a cut-off turn). Only a whole line can match the gold answer, so a correct
 * answer buried in prose earns nothing.
 */
export function lastLineAnswer(text: string): string | null {
  let end = text.length;
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end).replace(STRAY_TAG_RE, '').trim();
    if (!isBlank(line)) return line.replace(ANSWER_PREFIX_RE, '');
    end = start - 1;
  }
  return null;
}

/**
 * The bodies of the fenced (```) code blocks in a text, whatever their info string. An unclosed final
 * fence (a turn cut off by the token limit) runs to the end of the text.
 */
export function extractCodeBlocks(text: string): string[] {
  const blocks: string[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf('```', from);
    if (open === -1) break;
    const bodyStart = text.indexOf('\n', open + 3);
    if (bodyStart === -1) break;
    const close = text.indexOf('```', bodyStart + 1);
    blocks.push(text.slice(bodyStart + 1, close === -1 ? text.length : close));
    if (close === -1) break;
    from = close + 3;
  }
  return blocks;
}
