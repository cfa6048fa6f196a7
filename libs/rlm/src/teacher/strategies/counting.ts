import { answerPrinted, code, type TeacherStrategy } from './types';

/** `counting`: how often a word occurs as a whole word in any case. Code counts; llm() never should. */

const counter = (name: string, robust: boolean, summary: string, source: (word: string) => string) =>
  ({
    name,
    type: 'counting',
    robust,
    usesLlm: false,
    summary,
    next: (q, obs) => (obs.length === 0 ? code(source(q.word)) : answerPrinted(obs)),
  }) satisfies TeacherStrategy<'counting'>;

export const COUNTING_STRATEGIES: readonly TeacherStrategy<'counting'>[] = [
  counter(
    'counting.whole_word',
    true,
    'whole-word regex in any case',
    (w) => String.raw`print((ctx.match(/\b${w}\b/gi) || []).length)`,
  ),
  counter(
    'counting.split_words',
    true,
    'splits into words and compares them lower-cased',
    (w) => String.raw`print(ctx.split(/\W+/).filter((x) => x.toLowerCase() === '${w}').length)`,
  ),
  counter(
    'counting.substring',
    false,
    'case-sensitive substring count; fooled by plurals, longer words and capitals',
    (w) => `print(ctx.split('${w}').length - 1)`,
  ),
  counter(
    'counting.case_sensitive',
    false,
    'whole-word regex without the i flag; misses capitalised occurrences',
    (w) => String.raw`print((ctx.match(/\b${w}\b/g) || []).length)`,
  ),
  counter(
    'counting.any_substring',
    false,
    'case-insensitive substring regex; fooled by plurals and longer words',
    (w) => `print((ctx.match(/${w}/gi) || []).length)`,
  ),
];
