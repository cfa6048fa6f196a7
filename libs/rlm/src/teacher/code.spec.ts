import { describe, expect, it } from 'vitest';
import { drawStyle, lit, sentencesWith, templateExpression } from './code';
import { breakCell } from './repair';
import { drawStream } from './rng';

describe('code phrasings', () => {
  it('draws distinct variable names and many different styles, deterministically', () => {
    const styles = Array.from({ length: 200 }, (_, i) => drawStyle(drawStream(i, 't')));
    for (const s of styles) {
      const names = [s.hits, s.part, s.value, s.item, s.total, s.reader];
      expect(new Set(names).size).toBe(names.length);
    }
    expect(new Set(styles.map((s) => JSON.stringify(s))).size).toBeGreaterThan(150);
    expect(drawStyle(drawStream(3, 'x'))).toEqual(drawStyle(drawStream(3, 'x')));
  });

  it('writes keys as JSON-escaped string literals and escaped regex literals', () => {
    expect(lit('the "odd" key')).toBe('"the \\"odd\\" key"');
    const style = drawStyle(drawStream(0, 'x'));
    expect(sentencesWith({ ...style, search: 'grep_word' }, { literal: 'blue lamp' })).toBe(
      'grep(/\\bblue lamp\\b/i).map((h) => h.text)',
    );
    // A whole-word pattern is not sound next to a hyphen or a quote: such keys fall back to a substring grep.
    expect(sentencesWith({ ...style, search: 'grep_word' }, { literal: "Ode-7'" })).toBe(
      'grep("Ode-7\'").map((h) => h.text)',
    );
    expect(sentencesWith({ ...style, search: 'sentences' }, { variable: 'k' })).toBe(
      'sentences().filter((s) => s.text.includes(k)).map((s) => s.text)',
    );
  });

  it('turns a sub-question template into a string expression over earlier answers', () => {
    expect(templateExpression('Where does {0} live?', ['owner'])).toBe('"Where does " + owner + " live?"');
    expect(templateExpression('{0}', ['x'])).toBe('x');
  });
});

describe('repair bugs', () => {
  it('misspells the first helper call, drops a closing paren, or reads .text off the array', () => {
    const cell = 'const hits = grep("lamp").map((h) => h.text);\nanswer(llm(question, hits.join(" ")));';
    expect(breakCell(cell, 'typo')).toBe(
      'const hits = gerp("lamp").map((h) => h.text);\nanswer(llm(question, hits.join(" ")));',
    );
    expect(breakCell(cell, 'paren')).toBe(
      'const hits = grep("lamp").map((h) => h.text;\nanswer(llm(question, hits.join(" ")));',
    );
    expect(breakCell(cell, 'array_text')).toBe(
      'const hits = grep("lamp").text;\nanswer(llm(question, hits.join(" ")));',
    );
  });

  it('returns null where a bug does not fit the cell', () => {
    expect(breakCell('answer(ctx.split("x").length - 1);', 'array_text')).toBeNull();
    expect(breakCell('answer(42);', 'typo')).toBeNull();
    expect(breakCell('print 1', 'paren')).toBeNull();
  });
});
