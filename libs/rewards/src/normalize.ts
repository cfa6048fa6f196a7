/**
 * Answer normalisation shared by the gold side and the model side, so both fold the same way.
 *
 * Order matters: NFKC first (fullwidth, ligatures, mathematical letters → plain), then lower case,
 * then strip combining marks (é → e, and the dot Turkish İ leaves behind), then drop invisible format
 * characters (zero-width space, soft hyphen, bidi marks), then fold look-alike letters from Cyrillic
 * and Greek onto Latin, then punctuation, then articles and whitespace.
 */

/**
 * Letters that render like a Latin letter, after lower-casing (so uppercase look-alikes such as Cyrillic
 * 'В' → 'в' are listed by their lower-case form). Mapped to the Latin letter they imitate.
 * A hand-picked subset of Unicode's confusables.txt covering the letters a model or a document can mix in.
 */
const CONFUSABLES: Readonly<Record<string, string>> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  һ: 'h',
  н: 'h',
  і: 'i',
  ӏ: 'l',
  ј: 'j',
  к: 'k',
  м: 'm',
  о: 'o',
  р: 'p',
  ԛ: 'q',
  с: 'c',
  ѕ: 's',
  т: 't',
  у: 'y',
  ԝ: 'w',
  х: 'x',
  ԁ: 'd',
  // Greek
  α: 'a',
  β: 'b',
  ε: 'e',
  ζ: 'z',
  η: 'h',
  ι: 'i',
  κ: 'k',
  μ: 'm',
  ν: 'n',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'y',
  χ: 'x',
  // Latin letters that look like other Latin letters
  ɑ: 'a',
  ɡ: 'g',
  ı: 'i',
  ȷ: 'j',
};
const CONFUSABLE_RE = new RegExp(`[${Object.keys(CONFUSABLES).join('')}]`, 'gu');
const NON_ASCII_RE = /\P{ASCII}/u;

const COMBINING_MARKS_RE = /\p{M}+/gu;
const FORMAT_CHARS_RE = /\p{Cf}+/gu;
/** Dashes and slashes separate words ("new-york" = "new york"); other punctuation and symbols just vanish. */
const WORD_SEPARATORS_RE = /[\p{Pd}/]+/gu;
const PUNCTUATION_RE = /[\p{P}\p{S}]+/gu;
const WHITESPACE_RE = /\s+/u;
const ARTICLES = new Set(['a', 'an', 'the']);

/** Unicode folding only (NFKC, case, marks, invisible characters, look-alikes); keeps punctuation. */
export function foldUnicode(text: string): string {
  let folded = text.normalize('NFKC').toLowerCase();
  if (NON_ASCII_RE.test(folded)) {
    folded = folded
      .normalize('NFD')
      .replace(COMBINING_MARKS_RE, '')
      .replace(FORMAT_CHARS_RE, '')
      .replace(CONFUSABLE_RE, (ch) => CONFUSABLES[ch] ?? ch)
      // Recompose what NFD split without being a mark (Hangul syllables).
      .normalize('NFC');
  }
  return folded;
}

/**
 * Normalise an answer for exact-match comparison: Unicode folding (see the module comment), lower case,
 * punctuation removed (dashes and slashes become spaces), the articles a/an/the removed, whitespace
 * collapsed. "The  Eiffel-Tower." → "eiffel tower"; "1,200" → "1200"; "Pаris" (Cyrillic а) → "paris".
 */
export function normalizeAnswer(text: string): string {
  const words = foldUnicode(text).replace(WORD_SEPARATORS_RE, ' ').replace(PUNCTUATION_RE, '').split(WHITESPACE_RE);
  let out = '';
  for (const word of words) {
    if (word === '' || ARTICLES.has(word)) continue;
    out = out === '' ? word : `${out} ${word}`;
  }
  return out;
}

/** A Map, not an object literal: a key such as "__proto__" must not reach Object.prototype. */
const NUMBER_WORDS: ReadonlyMap<string, number> = new Map([
  ['zero', 0],
  ['one', 1],
  ['two', 2],
  ['three', 3],
  ['four', 4],
  ['five', 5],
  ['six', 6],
  ['seven', 7],
  ['eight', 8],
  ['nine', 9],
  ['ten', 10],
  ['eleven', 11],
  ['twelve', 12],
  ['thirteen', 13],
  ['fourteen', 14],
  ['fifteen', 15],
  ['sixteen', 16],
  ['seventeen', 17],
  ['eighteen', 18],
  ['nineteen', 19],
  ['twenty', 20],
  ['thirty', 30],
  ['forty', 40],
  ['fifty', 50],
  ['sixty', 60],
  ['seventy', 70],
  ['eighty', 80],
  ['ninety', 90],
  ['hundred', 100],
  ['thousand', 1000],
]);

/** Plain ("1200", "-3.5", ".5") or with thousands groups by comma, space or underscore ("1,200", "1 200 000.25"). */
const NUMBER_RE = /^[-+]?(?:\d{1,3}(?:([, _])\d{3})(?:\1\d{3})*|\d+)?(?:\.\d+)?$/;

/**
 * Read an answer as a single number, or null when it is not exactly one number.
 * Accepts thousands separators, a leading currency sign, a trailing '%' or '.', the Unicode minus,
 * and the number words zero…twenty, the tens, hundred and thousand. "1,200 or 1300" is not a number.
 */
export function parseNumber(text: string): number | null {
  let s = foldUnicode(text)
    .trim()
    .replace(/\u2212/g, '-');
  if (s.length === 0 || s.length > 64) return null;
  if (s.endsWith('.')) s = s.slice(0, -1);
  if (s.endsWith('%')) s = s.slice(0, -1).trimEnd();
  s = s.replace(/^([-+]?)[$€£¥]\s*/u, '$1');
  const word = NUMBER_WORDS.get(s);
  if (word !== undefined) return word;
  if (!/\d/.test(s) || !NUMBER_RE.test(s)) return null;
  const value = Number(s.replace(/[, _]/g, ''));
  return Number.isFinite(value) ? value : null;
}

/** Integers compare exactly; other numbers up to floating-point noise ("12.50" = "12.5", 0.1 + 0.2 = 0.3). */
export function numbersEqual(a: number, b: number): boolean {
  if (Number.isInteger(a) && Number.isInteger(b)) return a === b;
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}
