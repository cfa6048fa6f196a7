import type { NeedlePosition } from '@fathom/contracts';
import { fillerSentence } from './filler';
import type { Rng } from '@fathom/contracts';
import type { Insert } from './task-types';

export interface BuiltDocument {
  context: string;
  /** Needle sentences in document order. */
  needlePositions: NeedlePosition[];
}

/** Depths are rounded so files stay readable; start/end offsets are exact. */
function roundDepth(value: number): number {
  return Math.round(value * 1e4) / 1e4;
}

/**
 * Lays out filler prose in paragraphs of 3–7 sentences and places every insert at an independent uniform depth
 * (inserts with a `sequence` take the drawn depths in sequence order).
 * Length: the result holds at least `targetChars` characters and exceeds it by less than one filler sentence
 * (inserts are budgeted before the last filler sentence is chosen).
 */
export function buildDocument(rng: Rng, targetChars: number, inserts: readonly Insert[]): BuiltDocument {
  const drawn = inserts.map((insert, order) => ({ insert, order, at: rng.float() * targetChars }));
  // Sequenced inserts keep their drawn depths but take them in sequence order.
  const sequenced = drawn.filter((p) => p.insert.sequence !== undefined);
  const depths = sequenced.map((p) => p.at).sort((a, b) => a - b);
  sequenced
    .sort((a, b) => a.insert.sequence! - b.insert.sequence!)
    .forEach((p, i) => {
      p.at = depths[i];
    });
  const placed = drawn.sort((a, b) => a.at - b.at || a.order - b.order);
  // Separator before an insert is at most 2 characters ("\n\n").
  let pendingChars = placed.reduce((sum, p) => sum + p.insert.text.length + 2, 0);

  const pieces: string[] = [];
  const needleSpans: { start: number; end: number }[] = [];
  let length = 0;
  let leftInParagraph = 0;

  const emit = (sentence: string): number => {
    let separator = '';
    if (pieces.length > 0) separator = leftInParagraph === 0 ? '\n\n' : ' ';
    if (leftInParagraph === 0) leftInParagraph = rng.int(3, 7);
    leftInParagraph--;
    pieces.push(separator, sentence);
    const start = length + separator.length;
    length = start + sentence.length;
    return start;
  };
  let next = 0;
  const emitInsert = (): void => {
    const { insert } = placed[next++];
    pendingChars -= insert.text.length + 2;
    const start = emit(insert.text);
    if (insert.needle) needleSpans.push({ start, end: start + insert.text.length });
  };

  while (length + pendingChars < targetChars) {
    while (next < placed.length && placed[next].at <= length) emitInsert();
    if (length + pendingChars < targetChars) emit(fillerSentence(rng));
  }
  while (next < placed.length) emitInsert();
  if (length < targetChars) emit(fillerSentence(rng));

  const context = pieces.join('');
  const needlePositions = needleSpans
    .map(({ start, end }) => ({ start, end, depth: roundDepth(start / context.length) }))
    .sort((a, b) => a.start - b.start);
  return { context, needlePositions };
}
