import { OWNER_OF_QUESTION, SUB_QUESTIONS } from '@fathom/tasks';
import { lit, readerFunction, searchAndReadLines, templateExpression, type CodeStyle } from '../code';
import { QUESTION_ONLY_NAMES, trainQuestionOn, wholeWindows } from './read';
import { playCells, type TeacherStrategy } from './types';

/**
 * `multi_hop`: "In which city does the owner of the lamp live?". Two reads: llm() names the owner from the object's
 * sentences, then code finds the owner's sentences and llm() reads the city from them.
 */

/**
 * The question-only two hops: `search(question)` finds the object's sentences and llm() reads them with
 * `OWNER_OF_QUESTION` before the question, so nothing of the question is copied; then `search(owner)` finds the
 * owner's sentences and llm() reads them with a home question of the train family built on the owner. Names and loop
 * are fixed, as in every question-only program, and windows are whole (`WHOLE_WINDOWS`), as tracking's.
 *
 * When no owner is read ("unknown": the question is about something nobody owns, such as a `tracking` or `niah`
 * question in a wording the policy took for a multi_hop one), the second hop backs off to the one-key program's
 * read: the windows of `search(question)` with the question. A program chosen from the question's words is then
 * right for more questions than its type's.
 *
 * The hops are two turns, because together they run over the byte-level root's 512-token turn budget, and the first
 * prints nothing: its observation is "(no output)" whatever the owner read, so the second turn is written after the
 * same observation in a back-off as in training (measured: after a printed owner, the root trained on printed owners
 * broke the second turn off in 33 of 33 episodes whose owner read was "unknown", which no teacher episode shows).
 */
function searchHopsCells(style: CodeStyle): string[] {
  // The object's sentences are `owned`, not the one-key program's `hits`: the program's first word after `const`
  // tells it apart (measured: with `hits` first and `let owner` as the only difference in its first line, the
  // trained root wrote the one-key program for every multi_hop question).
  const first: CodeStyle = { ...wholeWindows(style), ...QUESTION_ONLY_NAMES, hits: 'owned', value: 'owner' };
  const second: CodeStyle = { ...first, hits: 'homes', value: 'reply' };
  const ask = trainQuestionOn(SUB_QUESTIONS.home, style, 'owner');
  return [
    searchAndReadLines(first, 'question', `${lit(OWNER_OF_QUESTION)} + question`).join('\n'),
    [
      "const known = owner !== 'unknown';",
      ...searchAndReadLines(second, 'known ? owner : question', `known ? ${ask} : question`),
      'answer(reply);',
    ].join('\n'),
  ];
}

export const MULTI_HOP_STRATEGIES: readonly TeacherStrategy[] = [
  {
    name: 'multi_hop.two_hops',
    type: 'multi_hop',
    robust: true,
    usesLlm: true,
    summary: "llm() reads the owner from the object's sentences, then the city from the owner's sentences",
    next: (view, style, obs) => {
      const { reader, value } = style;
      const first = `const ${value} = ${reader}(${lit(view.subquestions[0])}, ${lit(view.key)});`;
      const second = `answer(${reader}(${templateExpression(view.subquestions[1], [value])}, ${value}));`;
      // Looking first shows the owner in an observation before the second hop is read.
      const cells = style.look
        ? [`${readerFunction(style)}\n${first}\nprint(${value});`, second]
        : [`${readerFunction(style)}\n${first}\n${second}`];
      return playCells(cells, obs);
    },
  },
  {
    name: 'multi_hop.search_question',
    type: 'multi_hop',
    robust: true,
    usesLlm: true,
    summary:
      "llm() reads the owner from the sentences search(question) finds, then the city from the owner's (no owner: the " +
      'question from its own sentences); nothing copied',
    next: (_view, style, obs) => playCells(searchHopsCells(style), obs),
  },
];
