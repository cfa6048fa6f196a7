import { escapeRegExp } from '@fathom/contracts';
import { lit, wholeWordRegExp, type CodeStyle } from '../code';
import { playCells, type TeacherStrategy, type TeacherView } from './types';

/**
 * `counting`: whole-word occurrences of a word in any letter case (plurals and longer words do not count). Code
 * counts; llm() never should. The word is copied from the question into a regex literal, or taken from the question
 * at run time.
 */

function wholeWordCell(view: TeacherView, style: CodeStyle): string {
  const re = `/\\b${escapeRegExp(view.key)}\\b/gi`;
  const n = style.total;
  switch (style.loop) {
    case 'for_break':
      return `let ${n} = 0;\nfor (const m of ctx.matchAll(${re})) ${n}++;\nanswer(${n});`;
    case 'index':
      return `answer([...ctx.matchAll(${re})].length);`;
    case 'find':
      return `const ${style.hits} = ctx.match(${re}) || [];\nanswer(${style.hits}.length);`;
  }
}

/**
 * The question-only count: the word is taken from the question at run time (the quoted word, whatever the phrasing),
 * so the program copies nothing of the question; a whole-word, case-insensitive pattern of it is counted with code.
 * Its names are fixed, as in every question-only program: a policy that cannot copy a name it chose a line up
 * declares one and reads another (measured: `const name = …` then `kteme`).
 */
function quotedWordCell(style: CodeStyle): string {
  const pattern = wholeWordRegExp('word', 'gi');
  const take = `const word = question.match(/["'](.+?)["']/)[1];`;
  return style.forLoop
    ? `${take}\nlet n = 0;\nfor (const m of ctx.matchAll(${pattern})) n++;\nanswer(n);`
    : `${take}\nanswer((ctx.match(${pattern}) || []).length);`;
}

export const COUNTING_STRATEGIES: readonly TeacherStrategy[] = [
  {
    name: 'counting.whole_word',
    type: 'counting',
    robust: true,
    usesLlm: false,
    summary: 'a whole-word, case-insensitive regex literal of the word; counts matches with code',
    next: (view, style, obs) => playCells([wholeWordCell(view, style)], obs),
  },
  {
    name: 'counting.quoted_word',
    type: 'counting',
    robust: true,
    usesLlm: false,
    summary: 'takes the quoted word from the question at run time and counts its whole-word matches with code',
    next: (_view, style, obs) => playCells([quotedWordCell(style)], obs),
  },
  {
    name: 'counting.substring',
    type: 'counting',
    robust: false,
    usesLlm: false,
    summary: 'case-sensitive substring count; fooled by plurals, longer words and capitals',
    next: (view, _style, obs) => playCells([`answer(ctx.split(${lit(view.key)}).length - 1);`], obs),
  },
];
