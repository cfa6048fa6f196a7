import { parse, type Program } from 'acorn';

export type RewriteResult = { ok: true; code: string } | { ok: false; message: string };

/**
 * Gives a REPL cell notebook semantics: top-level `let`/`const` become `var` (same width, so error columns
 * still match) and top-level `class C {}` becomes `var C = class C {};`. Run as an indirect eval, every
 * top-level name is then a property of the guest's global object, persists into later cells and may be
 * declared again there — where a `const` would be a SyntaxError or, inside eval, vanish after the cell.
 * Declarations inside blocks and functions keep their meaning.
 *
 * A cell that does not parse returns acorn's message, e.g. `Unexpected token (2:7)`.
 */
export function rewriteTopLevel(code: string): RewriteResult {
  let program: Program;
  try {
    program = parse(code, { ecmaVersion: 'latest', sourceType: 'script' });
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  const edits: { at: number; remove: number; text: string }[] = [];
  for (const node of program.body) {
    if (node.type === 'VariableDeclaration' && (node.kind === 'let' || node.kind === 'const')) {
      edits.push({ at: node.start, remove: node.kind.length, text: 'var'.padEnd(node.kind.length, ' ') });
    } else if (node.type === 'ClassDeclaration') {
      edits.push({ at: node.start, remove: 0, text: `var ${node.id.name} = ` }, { at: node.end, remove: 0, text: ';' });
    }
  }
  let out = code;
  for (let i = edits.length - 1; i >= 0; i--) {
    const { at, remove, text } = edits[i];
    out = out.slice(0, at) + text + out.slice(at + remove);
  }
  return { ok: true, code: out };
}
