import { describe, expect, it } from 'vitest';
import { SPLITS } from '@fathom/contracts';
import { fillerSentence } from './filler';
import { Rng } from './rng';
import {
  AGREEMENT_KINDS,
  AGREEMENT_STEMS,
  CITIES,
  COLOURS,
  COUNTED_WORDS,
  DECOY_PARTS,
  NIAH_OBJECTS,
  PRICED_ITEMS,
  forSplit,
} from './vocab';

const KEY_LISTS = { NIAH_OBJECTS, PRICED_ITEMS, AGREEMENT_STEMS, COUNTED_WORDS, CITIES };
const ALL_ENTITY_WORDS = [...Object.values(KEY_LISTS).flat(), ...AGREEMENT_KINDS, ...COLOURS].map((w) =>
  w.toLowerCase(),
);

describe('vocabularies', () => {
  it('have no duplicates and no word shared between two lists', () => {
    expect(new Set(ALL_ENTITY_WORDS).size).toBe(ALL_ENTITY_WORDS.length);
    expect(DECOY_PARTS.filter((p) => ALL_ENTITY_WORDS.includes(p))).toEqual([]);
  });

  it('are partitioned into three disjoint, complete and non-trivial split vocabularies', () => {
    for (const [name, list] of Object.entries(KEY_LISTS)) {
      const parts = SPLITS.map((s) => forSplit(list, s));
      expect(parts.flat().sort(), name).toEqual([...list].sort());
      for (const part of parts) expect(part.length, name).toBeGreaterThanOrEqual(15);
    }
  });
});

describe('filler prose', () => {
  const rng = new Rng(1);
  const sentences = Array.from({ length: 20_000 }, () => fillerSentence(rng));
  const words = new Set(sentences.flatMap((s) => s.toLowerCase().split(/[^a-z]+/)).filter((w) => w !== ''));

  it('is varied', () => {
    expect(new Set(sentences).size).toBeGreaterThan(19_000);
    expect(words.size).toBeGreaterThan(250);
  });

  it('never mentions an entity, an answer word or a number', () => {
    expect(ALL_ENTITY_WORDS.filter((w) => words.has(w))).toEqual([]);
    expect(sentences.filter((s) => /[\d$]/.test(s))).toEqual([]);
  });

  it('hides no counted word inside a longer word', () => {
    const hidden = COUNTED_WORDS.flatMap((c) => [...words].filter((w) => w.includes(c)).map((w) => `${c} in ${w}`));
    expect(hidden).toEqual([]);
  });

  it('is well-formed sentences', () => {
    for (const s of sentences.slice(0, 500)) expect(s).toMatch(/^[A-Z][^.]*\.$/);
  });
});
