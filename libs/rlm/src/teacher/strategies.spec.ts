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

  it('value-printing strategies answer what was printed, whatever it is', () => {
    const printers = [
      'niah.precise_regex',
      'niah.llm_mentions',
      'niah.first_mention',
      'niah.llm_window',
      'extractive.llm_mentions',
      'extractive.first_hit',
      'extractive.llm_window',
      'counting.whole_word',
      'counting.substring',
    ];
    for (const name of printers) {
      expect(finalAnswer(play(name, ['teal'])), name).toBe('teal');
      expect(finalAnswer(play(name, ['navy'])), name).toBe('navy');
      expect(finalAnswer(play(name, ['null'])), name).toBe('unknown');
    }
  });

  it('reading strategies answer the statement the observation makes, not a near miss', () => {
    expect(finalAnswer(play('niah.read_mentions', ['The mirror used to be red.\nThe mirror is teal.']))).toBe('teal');
    expect(finalAnswer(play('niah.read_mentions', ['The mirror used to be red.']))).toBe('unknown');
    expect(
      finalAnswer(
        play('extractive.read_mentions', [
          'The 1987 Harbour Accord was drafted in Oslo.\nDelegates signed the 1987 Harbour Accord in Lima.',
        ]),
      ),
    ).toBe('Lima');
  });

  it('exact-phrase strategies refine with a second search when the first prints nothing', () => {
    const moves = play('niah.exact_phrase', ['null', 'gold']);
    expect(moves.map((m) => m.kind)).toEqual(['code', 'code', 'answer']);
    expect(finalAnswer(moves)).toBe('gold');
    expect(play('extractive.exact_phrase', ['Lima']).map((m) => m.kind)).toEqual(['code', 'answer']);
  });

  it('multi_needle strategies add what they read with code, then answer what the sum printed', () => {
    const naive = play('multi_needle.first_number', ['lamp 1,250\ndrill undefined', '1250']);
    expect(naive[1]).toEqual({ kind: 'code', code: 'print(1250)' });
    expect(finalAnswer(naive)).toBe('1250');
    const robust = play('multi_needle.read_mentions', [
      'The lamp used to cost $3.\nThe lamp costs $1,250.\nFor $40 you can buy the drill.',
      '1290',
    ]);
    expect(robust[1]).toEqual({ kind: 'code', code: 'print(1250 + 40)' });
    expect(finalAnswer(robust)).toBe('1290');
    expect(finalAnswer(play('multi_needle.llm_per_item', ['lamp unknown\ndrill 40', '40']))).toBe('40');
  });
});
