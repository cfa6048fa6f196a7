import { describe, expect, it } from 'vitest';
import { blankNonCode, countLlmCallsFallback, countLlmCallsStatic } from './llm-calls';

describe('countLlmCallsStatic', () => {
  it.each([
    ['llm("q", ctx)', 1],
    ['const a = await llm(q, ctx.slice(0, 1000));\nconst b = await llm(q, ctx.slice(1000));', 2],
    ['const parts = chunks.map((c) => llm(q, c));', 1],
    ['globalThis.llm(q)', 1],
    ['llm?.(q)', 1],
    ['const x = llm (q)', 1],
    ['print(ctx.length)', 0],
    ['const llmx = 1; myllm(2); llm_helper(3)', 0],
    ['function llm(q) { return q; }', 0],
    ['return llm(q)', 1],
    ['const s = `${llm(q)}`', 1],
    ["globalThis['llm'](q)", 1],
    ['\\u006clm(q)', 1],
    ['const s = "\\u006clm(q)"', 0],
  ])('counts %j as %d (parsed)', (code, calls) => {
    expect(countLlmCallsStatic(code)).toEqual({ calls, method: 'ast' });
  });

  it('ignores llm( in comments and strings', () => {
    const code = [
      '// llm(a) in a line comment',
      '/* llm(b) in a block comment */',
      'const s = "llm(c)" + \'llm(d)\' + `llm(e)`;',
      'const r = /llm\\(/g;',
      'print(s, r);',
    ].join('\n');
    expect(countLlmCallsStatic(code)).toEqual({ calls: 0, method: 'ast' });
  });

  it('falls back to the tolerant scanner for code that does not parse', () => {
    expect(countLlmCallsStatic('const a = llm(q, ctx.slice(0,\n// llm(z)\n"llm(y)" llm(x')).toEqual({
      calls: 2,
      method: 'fallback',
    });
  });
});

describe('blankNonCode', () => {
  it('blanks comments, strings, template text and regex literals, keeping substitutions', () => {
    const out = blankNonCode('a /* llm( */ b // llm(\nc "llm(" `t ${llm(1)} llm(`; /llm\\(/ d');
    expect(out).not.toMatch(/llm\(\s*(?!1)/);
    expect(out).toContain('llm(1)');
    expect(out).toContain(' d');
  });

  it('treats a slash after a value as division', () => {
    expect(blankNonCode('x = a / b; llm(c) / 2')).toContain('llm(c)');
  });

  it('survives unterminated literals and nested templates', () => {
    expect(() => blankNonCode('"abc')).not.toThrow();
    expect(() => blankNonCode('`${`${llm(1)}`')).not.toThrow();
    expect(countLlmCallsFallback('`a ${ {k: llm(1)}.k } b` llm(2)')).toBe(2);
  });
});

describe('countLlmCallsFallback', () => {
  it('counts calls at identifier boundaries only', () => {
    expect(countLlmCallsFallback('llm(1); x.llm(2); myllm(3); llm_x(4); function llm(a) {')).toBe(2);
  });
});
