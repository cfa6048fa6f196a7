import { describe, expect, it } from 'vitest';
import { parseTaskQuestion, type TaskQuestion } from './question';
import { findStrategy, TEACHER_STRATEGIES, type AnyTeacherStrategy, type TeacherMove } from './strategies';

const QUESTIONS: Record<AnyTeacherStrategy['type'], TaskQuestion> = {
  niah: parseTaskQuestion('What colour is the mirror?') as TaskQuestion,
  extractive: parseTaskQuestion('In which city was the 1987 Harbour Accord signed?') as TaskQuestion,
  multi_needle: parseTaskQuestion('What is the total price, in dollars, of the lamp and the drill?') as TaskQuestion,
  counting: parseTaskQuestion('How many times does the word "apple" appear in the document?') as TaskQuestion,
};

/** Every cell a strategy writes when no cell answers (no sandbox): it is asked again after each scripted observation. */
function cellsOf(strategy: AnyTeacherStrategy): string[] {
  const next = strategy.next as (q: TaskQuestion, o: readonly string[]) => TeacherMove | null;
  const cells: string[] = [];
  for (let move = next(QUESTIONS[strategy.type], []); move !== null;) {
    cells.push(move.code);
    move = next(
      QUESTIONS[strategy.type],
      cells.map(() => 'unknown'),
    );
  }
  return cells;
}

const cellsOfName = (name: string): string[] => cellsOf(findStrategy(name) as AnyTeacherStrategy);

/** A call of the REPL's `answer()` global. */
const ANSWERS = /(?:^|[^\w.])answer\(/;

describe('teacher strategies answer from code', () => {
  it('every strategy writes one or two cells, and its last cell calls answer()', () => {
    for (const s of TEACHER_STRATEGIES) {
      const cells = cellsOf(s);
      expect(cells.length, s.name).toBeGreaterThanOrEqual(1);
      expect(cells.length, s.name).toBeLessThanOrEqual(2);
      expect(cells[cells.length - 1], s.name).toMatch(ANSWERS);
    }
  });

  it("code never spells the question's key: it reads it from the REPL global `question`", () => {
    for (const s of TEACHER_STRATEGIES) {
      const cells = cellsOf(s);
      expect(cells[0], s.name).toMatch(/^const \w+ = question\.match\(/);
      for (const cell of cells) expect(cell, s.name).not.toMatch(/mirror|Harbour|1987|lamp|drill|apple/);
    }
  });

  it('one-cell strategies answer with the value their cell computes, never print it', () => {
    const oneCell = TEACHER_STRATEGIES.filter((s) => cellsOf(s).length === 1);
    expect(oneCell.length).toBe(16);
    for (const s of oneCell) expect(cellsOf(s)[0], s.name).not.toMatch(/\bprint\(/);
  });

  it('look-then-compute strategies print the mentions, then answer from a computing cell', () => {
    for (const name of ['niah.read_mentions', 'extractive.read_mentions']) {
      const [look, compute] = cellsOfName(name);
      expect(look, name).toMatch(/print\(s\.trim\(\)\)$/);
      expect(look, name).not.toMatch(ANSWERS);
      expect(compute, name).toMatch(/\nanswer\(m \? m\[1\]/);
    }
  });

  it('exact-phrase strategies answer when their search finds it, else print unknown and answer from a fallback', () => {
    for (const name of ['niah.exact_phrase', 'extractive.exact_phrase']) {
      const [first, fallback] = cellsOfName(name);
      expect(first, name).toMatch(/\nif \(m\) answer\(m\[1\]\);\nelse print\('unknown'\)$/);
      expect(fallback, name).toMatch(/\nanswer\(m \? m\[1\] : 'unknown'\)$/);
    }
  });
});
