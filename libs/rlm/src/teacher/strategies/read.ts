import { phrasingsOf, type Phrasing } from '@fathom/tasks';
import {
  readAndAnswerCells,
  searchAndReadCells,
  sentencesWith,
  templateExpression,
  WHOLE_WINDOWS,
  type CodeStyle,
} from '../code';
import { playCells, type TeacherStrategy, type TeacherView } from './types';

/**
 * Strategies for the one-key reading types — `niah` (the code on an object), `extractive` (where an agreement was
 * signed) and `tracking` (where an object ends up): the key's sentences, found by the key itself, are read with
 * `llm(question, window)` window by window, because only reading tells the needle from its near misses (tense,
 * negation, hypotheticals, reported claims, corrections, undone moves).
 */

type OneKeyType = 'niah' | 'extractive' | 'tracking';

/** The names and loop every question-only program writes (`searchQuestion`, multi_hop's and multi_needle's). */
export const QUESTION_ONLY_NAMES = { hits: 'hits', part: 'part', loop: 'for_break' } as const;

/**
 * A question-only program's sub-question about `variable`: a train-family phrasing of `phrasings` (the first or the
 * second, by `style.forLoop`), built on the variable as a string expression.
 */
export function trainQuestionOn(phrasings: readonly Phrasing[], style: CodeStyle, variable: string): string {
  const phrasing = phrasingsOf(phrasings, 'train')[style.forLoop ? 0 : 1];
  return templateExpression(phrasing.render('{0}'), [variable]);
}

/**
 * The robust reader: grep the key, read its sentences in windows with the task question, answer the first reading
 * that is not "unknown". A fact stated in one sentence (niah, extractive) is found in whichever window holds it; a
 * final place (tracking) needs every event of the object in one read, so tracking never draws a window that could
 * split them (its style's window is one of WHOLE_WINDOWS).
 */
export function readMentions(type: OneKeyType, summary: string): TeacherStrategy {
  const whole = wholeFor(type);
  return {
    name: `${type}.read_mentions`,
    type,
    robust: true,
    usesLlm: true,
    summary,
    next: (view, style, obs) => playCells(readAndAnswerCells(whole(style), 'question', view.key), obs),
  };
}

/** `style` with a window that holds every event of an object (one of WHOLE_WINDOWS). */
export const wholeWindows = (style: CodeStyle): CodeStyle =>
  WHOLE_WINDOWS.includes(style.window)
    ? style
    : { ...style, window: WHOLE_WINDOWS[style.window % WHOLE_WINDOWS.length] };

/** A tracking style with whole windows; other types' styles as drawn. */
const wholeFor =
  (type: OneKeyType) =>
  (style: CodeStyle): CodeStyle =>
    type === 'tracking' ? wholeWindows(style) : style;

/**
 * The question-only reader: `search(question)` finds the key's sentences by the question's rarest words, so the
 * program copies nothing from the question and is one text for every one-key type; the windows of those sentences
 * are read in document order with the task question (`searchAndReadCells`). Its names and loop are fixed (`hits`,
 * `part`, `reply`, a for-of that breaks): a policy that cannot copy a name it chose a few lines up mixes drawn names
 * (measured: `reply` read where `result` was declared), so only the window size, the joiner and looking first vary.
 */
export function searchQuestion(type: OneKeyType, summary: string): TeacherStrategy {
  const whole = wholeFor(type);
  const fixed = (style: CodeStyle): CodeStyle => ({ ...whole(style), ...QUESTION_ONLY_NAMES, value: 'reply' });
  return {
    name: `${type}.search_question`,
    type,
    robust: true,
    usesLlm: true,
    summary,
    next: (_view, style, obs) => playCells(searchAndReadCells(fixed(style)), obs),
  };
}

/**
 * The naive search: the last word of the first (or last) sentence naming the key, without reading it. Right when
 * that sentence is the needle and ends with the value; fooled by every distractor placed before the needle.
 */
export function lastWordOf(type: OneKeyType, which: 'first' | 'last', summary: string): TeacherStrategy {
  const cell = (view: TeacherView, style: CodeStyle): string => {
    const h = style.hits;
    const sentence = which === 'first' ? `${h}[0]` : `${h}[${h}.length - 1]`;
    return [
      `const ${h} = ${sentencesWith(style, { literal: view.key })};`,
      `answer(${h}.length ? ${sentence}.trim().split(' ').pop().replace(/[.!?]+$/, '') : 'unknown');`,
    ].join('\n');
  };
  return {
    name: `${type}.${which}_mention`,
    type,
    robust: false,
    usesLlm: false,
    summary,
    next: (view, style, obs) => playCells([cell(view, style)], obs),
  };
}
