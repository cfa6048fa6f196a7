import { definePhrasings, defineFrames, type Frame, type Phrasing } from './types';

/**
 * tracking: where an object is at the end of the document. key = object, value = place, actor = who acts, other =
 * who receives it in a hand-over. `start` and `move` frames change the object's place; `undone`, `hypothetical`,
 * `negation` and `reported` frames name a place the object is not moved to.
 */
export const TRACKING_QUESTIONS: Phrasing[] = definePhrasings(
  'tracking.q',
  [
    (k) => `Where is the ${k} at the end of the document?`,
    (k) => `Where does the ${k} end up?`,
    (k) => `After all the moves described, where is the ${k}?`,
    (k) => `Where is the ${k} kept by the end?`,
    (k) => `In which place does the ${k} finish?`,
    (k) => `What is the final location of the ${k}?`,
    (k) => `Where can the ${k} be found once everything is over?`,
  ],
  [
    (k) => `Following the story to its end, where would you find the ${k}?`,
    (k) => `Which place holds the ${k} when the account closes?`,
    (k) => `Where has the ${k} come to rest by the last page?`,
    (k) => `Name the place the ${k} is in at the finish.`,
    (k) => `If you went looking for the ${k} afterwards, where would it be?`,
    (k) => `Tell me where the ${k} winds up.`,
  ],
);

export const TRACKING_FRAMES: Frame[] = [
  ...defineFrames(
    'tracking',
    'start',
    [(s) => `At the start of the week the ${s.key} was in ${s.value}.`],
    [(s) => `The ${s.key} began the season in ${s.value}.`],
  ),
  ...defineFrames(
    'tracking',
    'move',
    [
      (s) => `${s.actor} moved the ${s.key} to ${s.value}.`,
      (s) => `${s.actor} carried the ${s.key} to ${s.value}.`,
      (s) => `The ${s.key} was taken to ${s.value}.`,
      (s) => `${s.actor} handed the ${s.key} to ${s.other}, who took it to ${s.value}.`,
    ],
    [
      (s) => `${s.actor} saw to it that the ${s.key} ended up in ${s.value}.`,
      (s) => `By evening the ${s.key} had found its way to ${s.value}.`,
      (s) => `${s.other} received the ${s.key} from ${s.actor} and settled it in ${s.value}.`,
    ],
  ),
  ...defineFrames(
    'tracking',
    'undone',
    [(s) => `${s.actor} carried the ${s.key} to ${s.value}, but brought it back the same day.`],
    [(s) => `The ${s.key} spent one night in ${s.value} before ${s.actor} returned it to where it had been.`],
  ),
  ...defineFrames(
    'tracking',
    'hypothetical',
    [(s) => `${s.actor} planned to move the ${s.key} to ${s.value} but never did.`],
    [(s) => `Had the cart not broken, ${s.actor} would have brought the ${s.key} to ${s.value}.`],
  ),
  ...defineFrames(
    'tracking',
    'negation',
    [(s) => `The ${s.key} was not taken to ${s.value}.`],
    [(s) => `Nobody ever brought the ${s.key} to ${s.value}.`],
  ),
  ...defineFrames(
    'tracking',
    'reported',
    [(s) => `Some say the ${s.key} was moved to ${s.value}.`],
    [(s) => `A rumour had the ${s.key} already in ${s.value}.`],
  ),
];
