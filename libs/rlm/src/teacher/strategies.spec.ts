import { describe, expect, it } from 'vitest';
import { parseTaskQuestion, type TaskQuestion } from './question';
import { findStrategy, TEACHER_STRATEGIES, type AnyTeacherStrategy, type TeacherMove } from './strategies';

const QUESTIONS: Record<AnyTeacherStrategy['type'], TaskQuestion> = {
  niah: parseTaskQuestion('What colour is the mirror?') as TaskQuestion,
  extractive: parseTaskQuestion('In which city was the 1987 Harbour Accord signed?') as TaskQuestion,
  multi_needle: parseTaskQuestion('What is the total price, in dollars, of the lamp and the drill?') as TaskQuestion,
  counting: parseTaskQuestion('How many times does the word "apple" appear in the document?') as TaskQuestion,
};

/** Plays a strategy against scripted observations (no sandbox): the moves it makes in reply. */
function play(name: string, observations: string[]): TeacherMove[] {
  const strategy = findStrategy(name) as AnyTeacherStrategy;
  const next = strategy.next as (q: TaskQuestion, o: readonly string[]) => TeacherMove;
  const moves: TeacherMove[] = [];
  for (let i = 0; i <= observations.length; i++) {
    const move = next(QUESTIONS[strategy.type], observations.slice(0, i));
    moves.push(move);
    if (move.kind === 'answer') break;
  }
  return moves;
}

const finalAnswer = (moves: TeacherMove[]): string | undefined => {
  const last = moves[moves.length - 1];
  return last.kind === 'answer' ? last.answer : undefined;
};

describe('teacher strategies answer from their observations only', () => {
  it('every strategy starts with code, not an answer', () => {
    for (const s of TEACHER_STRATEGIES) {
      const move = (s.next as (q: TaskQuestion, o: readonly string[]) => TeacherMove)(QUESTIONS[s.type], []);
      expect(move.kind, s.name).toBe('code');
    }
  });

  it("code never spells the question's key: it reads it from the REPL global `question`", () => {
    for (const s of TEACHER_STRATEGIES) {
      const next = s.next as (q: TaskQuestion, o: readonly string[]) => TeacherMove;
      const cells = [next(QUESTIONS[s.type], []), next(QUESTIONS[s.type], ['null'])].flatMap((m) =>
        m.kind === 'code' ? [m.code] : [],
      );
      expect(cells[0], s.name).toMatch(/^const \w+ = question\.match\(/);
      for (const cell of cells) expect(cell, s.name).not.toMatch(/mirror|Harbour|1987|lamp|drill|apple/);
    }
  });

  it('one-cell strategies answer what their cell printed, whatever it is', () => {
    const printers = TEACHER_STRATEGIES.filter(
      (s) => !s.name.endsWith('.read_mentions') && !s.name.endsWith('.exact_phrase'),
    ).map((s) => s.name);
    expect(printers.length).toBe(16);
    for (const name of printers) {
      expect(
        play(name, ['teal']).map((m) => m.kind),
        name,
      ).toEqual(['code', 'answer']);
      expect(finalAnswer(play(name, ['teal'])), name).toBe('teal');
      expect(finalAnswer(play(name, ['1290'])), name).toBe('1290');
      expect(finalAnswer(play(name, ['unknown'])), name).toBe('unknown');
      expect(finalAnswer(play(name, ['null'])), name).toBe('unknown');
    }
  });

  it('look-then-compute strategies print the mentions, then answer what the computing cell printed', () => {
    for (const name of ['niah.read_mentions', 'extractive.read_mentions']) {
      const moves = play(name, ['The mirror used to be red.\nThe mirror is teal.', 'teal']);
      expect(
        moves.map((m) => m.kind),
        name,
      ).toEqual(['code', 'code', 'answer']);
      expect(finalAnswer(moves), name).toBe('teal');
    }
  });

  it('exact-phrase strategies refine with a second search when the first prints nothing', () => {
    const moves = play('niah.exact_phrase', ['null', 'gold']);
    expect(moves.map((m) => m.kind)).toEqual(['code', 'code', 'answer']);
    expect(finalAnswer(moves)).toBe('gold');
    expect(play('extractive.exact_phrase', ['Lima']).map((m) => m.kind)).toEqual(['code', 'answer']);
  });
});
