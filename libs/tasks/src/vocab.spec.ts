import { describe, expect, it } from 'vitest';
import { SPLITS } from '@fathom/contracts';
import { fillerSentence } from './filler';
import { agreementKey, code, isClean, objectKey, person, place, reservedWords, splitOf, word } from './lexicon';
import { Rng } from '@fathom/contracts';
import { AGREEMENT_KINDS, DECOY_PARTS, FILLER, HYPHEN_PREFIXES, MODIFIERS, NOUNS } from './vocab';

const FIXED_ENTITY_WORDS = [...NOUNS, ...MODIFIERS, ...HYPHEN_PREFIXES, ...AGREEMENT_KINDS].map((w) => w.toLowerCase());
const fillerWords = [
  ...new Set(
    Object.values(FILLER)
      .flat()
      .join(' ')
      .toLowerCase()
      .split(/[^a-z]+/),
  ),
].filter((w) => w !== '');

describe('fixed vocabularies', () => {
  it('have no duplicates, and decoy parts are never entity words', () => {
    expect(new Set(FIXED_ENTITY_WORDS).size).toBe(FIXED_ENTITY_WORDS.length);
    expect(DECOY_PARTS.filter((p) => FIXED_ENTITY_WORDS.includes(p))).toEqual([]);
  });

  it('hide no entity word inside another ("bell" in "bellows")', () => {
    const inside = FIXED_ENTITY_WORDS.flatMap((a) => FIXED_ENTITY_WORDS.filter((b) => b !== a && b.includes(a)));
    expect(inside).toEqual([]);
  });

  it('hide no entity word inside any filler word (no "harp" in "harpist")', () => {
    const hidden = FIXED_ENTITY_WORDS.flatMap((e) =>
      fillerWords.filter((f) => f.includes(e)).map((f) => `${e} in ${f}`),
    );
    expect(hidden).toEqual([]);
  });
});

describe('generated entities', () => {
  const rng = new Rng(7);
  const bySplit = Object.fromEntries(
    SPLITS.map((split) => {
      const keys: string[] = [];
      for (let i = 0; i < 400; i++)
        keys.push(objectKey(rng, split), place(rng, split), person(rng, split), word(rng, split), code(rng, split));
      for (let i = 0; i < 100; i++) keys.push(agreementKey(rng, split).key);
      return [split, keys];
    }),
  ) as Record<(typeof SPLITS)[number], string[]>;

  it('belong to the split they were drawn for, so splits never share one', () => {
    for (const split of SPLITS) expect(bySplit[split].filter((k) => splitOf(k) !== split)).toEqual([]);
    const [train, evalKeys, heldout] = SPLITS.map((s) => new Set(bySplit[s].map((k) => k.toLowerCase())));
    expect([...train].filter((k) => evalKeys.has(k) || heldout.has(k))).toEqual([]);
    expect([...evalKeys].filter((k) => heldout.has(k))).toEqual([]);
  });

  it('are an open vocabulary: thousands of distinct values', () => {
    const distinct = new Set(bySplit.train);
    expect(distinct.size).toBeGreaterThan(1800);
  });

  it('come in several formats: multi-word, hyphenated, capitalised, year after the name, codes', () => {
    const keys = bySplit.eval;
    expect(keys.some((k) => /^[a-z]+ [a-z]+$/.test(k))).toBe(true);
    expect(keys.some((k) => /^[a-z]+-[a-z]+$/.test(k))).toBe(true);
    expect(keys.some((k) => /^[A-Z][a-z]+ [a-z]+$/.test(k))).toBe(true);
    expect(keys.some((k) => / of \d{4}$/.test(k))).toBe(true);
    expect(keys.some((k) => /^\d{4} /.test(k))).toBe(true);
    expect(keys.some((k) => /^[A-Z]\d-[A-Z]{2}\d$/.test(k))).toBe(true);
  });

  it('use pseudo-words that occur inside no filler or frame word', () => {
    const pseudo = SPLITS.flatMap((s) => bySplit[s])
      .flatMap((k) => k.split(/[ -]/))
      .filter((w) => /^[A-Za-z]{4,}$/.test(w) && !FIXED_ENTITY_WORDS.includes(w.toLowerCase()));
    expect(pseudo.length).toBeGreaterThan(1000);
    expect(pseudo.filter((w) => !isClean(w))).toEqual([]);
    const words = reservedWords().split('|');
    expect(pseudo.filter((w) => words.some((r) => r.includes(w.toLowerCase())))).toEqual([]);
  });
});

describe('filler prose', () => {
  const rng = new Rng(1);
  const sentences = Array.from({ length: 20_000 }, () => fillerSentence(rng));

  it('is varied', () => {
    expect(new Set(sentences).size).toBeGreaterThan(19_000);
    expect(new Set(sentences.flatMap((s) => s.toLowerCase().split(/[^a-z]+/))).size).toBeGreaterThan(250);
  });

  it('never holds a digit', () => {
    expect(sentences.filter((s) => /[\d$]/.test(s))).toEqual([]);
  });

  it('is well-formed sentences', () => {
    for (const s of sentences.slice(0, 500)) expect(s).toMatch(/^[A-Z][^.]*\.$/);
  });
});
