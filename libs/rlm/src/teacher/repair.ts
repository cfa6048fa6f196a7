/**
 * Repair turns: a first cell with a realistic bug, the error the real sandbox reports, then the corrected cell.
 * Each bug breaks the cell before it calls llm() or answer(), so only the corrected path reads and answers.
 */
export const BUG_KINDS = ['typo', 'paren', 'array_text'] as const;
export type BugKind = (typeof BUG_KINDS)[number];

/** Helper calls and their misspellings (a ReferenceError or "is not a function" TypeError when run). */
const TYPOS: readonly [string, string][] = [
  ['grep(', 'gerp('],
  ['search(', 'serach('],
  ['sentences(', 'sentence('],
  ['chunks(', 'chunsk('],
  ['ctx.split(', 'ctx.splt('],
  ['ctx.matchAll(', 'ctx.matchall('],
  ['ctx.match(', 'ctx.mach('],
];

/** `.text` read off the array a helper returned instead of off each element. */
const MAP_TEXT = /\.map\(\((\w)\) => \1\.text\)/;

/** `code` with the bug `kind` put in, or null when this bug does not fit the cell. */
export function breakCell(code: string, kind: BugKind): string | null {
  switch (kind) {
    case 'typo': {
      const found = TYPOS.map(([right, wrong]) => ({ at: code.indexOf(right), right, wrong }))
        .filter((t) => t.at >= 0)
        .sort((a, b) => a.at - b.at)[0];
      return found === undefined
        ? null
        : code.slice(0, found.at) + found.wrong + code.slice(found.at + found.right.length);
    }
    case 'paren': {
      const lines = code.split('\n');
      const i = lines.findIndex((l) => l.includes(')'));
      if (i === -1) return null;
      const at = lines[i].lastIndexOf(')');
      lines[i] = lines[i].slice(0, at) + lines[i].slice(at + 1);
      return lines.join('\n');
    }
    case 'array_text':
      return MAP_TEXT.test(code) ? code.replace(MAP_TEXT, '.text') : null;
  }
}
