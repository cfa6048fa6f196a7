import nlp from 'compromise';
import { WORD_TAGS, wordTag } from '@fathom/model';

/** One tagged term of compromise's JSON: its text's place in the tagged string and its tags. */
interface TaggedTerm {
  offset: { start: number; length: number };
  tags: string[];
}

/**
 * The part-of-speech tag (a `WORD_TAGS` index) of the term that covers each character of `text` where a term starts
 * or runs, by compromise (a rule-and-lexicon English tagger, no model to download): `tagAt(i)` is the tag of the term
 * holding character `i`, 0 (`none`) where no term does. A contraction's zero-length negation ("wasn't" is "was" and
 * an empty "not") joins the term before it, so "wasn't" reads as a negation.
 */
export function tagText(text: string): (charIndex: number) => number {
  const sentences = nlp(text).json({ offset: true, terms: { offset: true } }) as { terms: TaggedTerm[] }[];
  const spans: { start: number; end: number; tags: Set<string> }[] = [];
  for (const term of sentences.flatMap((s) => s.terms)) {
    const previous = spans.at(-1);
    if (term.offset.length === 0 && previous !== undefined) {
      for (const tag of term.tags) previous.tags.add(tag);
      continue;
    }
    spans.push({ start: term.offset.start, end: term.offset.start + term.offset.length, tags: new Set(term.tags) });
  }
  const tags = spans.map((s) => WORD_TAGS.indexOf(wordTag(s.tags)));
  return (charIndex) => {
    let lo = 0;
    let hi = spans.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (spans[mid].end <= charIndex) lo = mid + 1;
      else if (spans[mid].start > charIndex) hi = mid - 1;
      else return tags[mid];
    }
    return 0;
  };
}
