import { describe, expect, it } from 'vitest';
import { rewriteTopLevel } from './rewrite';

function rewritten(code: string): string {
  const result = rewriteTopLevel(code);
  if (!result.ok) throw new Error(result.message);
  return result.code;
}

describe('rewriteTopLevel', () => {
  it('turns top-level let/const into var of the same width', () => {
    expect(rewritten('const x = 1;\nlet y = 2, z;')).toBe('var   x = 1;\nvar y = 2, z;');
  });

  it('keeps destructuring and string contents intact', () => {
    expect(rewritten("const { a, b: [c] } = o; print('const x')")).toBe("var   { a, b: [c] } = o; print('const x')");
  });

  it('turns a top-level class into a var binding', () => {
    expect(rewritten('class A { m() { return 1 } }\nnew A()')).toBe('var A = class A { m() { return 1 } };\nnew A()');
  });

  it('leaves declarations in blocks, loops and functions alone', () => {
    const code = 'for (let i = 0; i < 2; i++) { const j = i }\nfunction f() { let k = 1; return k }\n{ const b = 2 }';
    expect(rewritten(code)).toBe(code);
  });

  it('reports syntax errors with a position', () => {
    const result = rewriteTopLevel('const = 3');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/\(1:\d+\)/);
  });
});
