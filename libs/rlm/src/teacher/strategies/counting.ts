import { playCells, type TeacherStrategy } from './types';

/**
 * `counting`: how often a word occurs as a whole word in any case. The word is read out of `question`; code
 * counts and answers the count; llm() never should.
 */

const WORD = 'const w = question.match(/"(.+?)"/)[1];';

const counter = (name: string, robust: boolean, summary: string, count: string) =>
  ({
    name,
    type: 'counting',
    robust,
    usesLlm: false,
    summary,
    next: (_q, obs) => playCells([`${WORD}\nanswer(${count})`], obs),
  }) satisfies TeacherStrategy<'counting'>;

export const COUNTING_STRATEGIES: readonly TeacherStrategy<'counting'>[] = [
  counter(
    'counting.whole_word',
    true,
    'whole-word regex in any case',
    String.raw`(ctx.match(RegExp('\\b' + w + '\\b', 'gi')) || []).length`,
  ),
  counter(
    'counting.split_words',
    true,
    'splits into words and compares them lower-cased',
    String.raw`ctx.split(/\W+/).filter((x) => x.toLowerCase() === w).length`,
  ),
  counter(
    'counting.substring',
    false,
    'case-sensitive substring count; fooled by plurals, longer words and capitals',
    'ctx.split(w).length - 1',
  ),
  counter(
    'counting.case_sensitive',
    false,
    'whole-word regex without the i flag; misses capitalised occurrences',
    String.raw`(ctx.match(RegExp('\\b' + w + '\\b', 'g')) || []).length`,
  ),
  counter(
    'counting.any_substring',
    false,
    'case-insensitive substring regex; fooled by plurals and longer words',
    `(ctx.match(RegExp(w, 'gi')) || []).length`,
  ),
];
