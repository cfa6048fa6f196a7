import { FRAMES } from './frames';

/**
 * Every piece of three words or more that a written frame of either family has around its slots: an invented
 * sentence must hold none of them, so that nothing of a frame's wording (the heldout family's included) leaks in.
 */
export function writtenFramePieces(): string[] {
  const slot = '\u0001';
  return Object.values(FRAMES)
    .flat()
    .flatMap((f) => f.render({ key: slot, value: slot, other: slot, actor: slot }).split(slot))
    .map((piece) => piece.trim())
    .filter((piece) => piece.split(' ').length >= 3);
}
