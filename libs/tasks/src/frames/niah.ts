import { definePhrasings, defineFrames, type Frame, type Phrasing } from './types';

/** niah: the code stamped on an object. key = object, value = code (other = a wrong code in distractors). */
export const NIAH_QUESTIONS: Phrasing[] = definePhrasings(
  'niah.q',
  [
    (k) => `What is the code of the ${k}?`,
    (k) => `What code does the ${k} carry?`,
    (k) => `Which code is on the ${k}?`,
    (k) => `Tell me the code of the ${k}.`,
    (k) => `What is the ${k}'s code?`,
    (k) => `Give the code stamped on the ${k}.`,
    (k) => `Which code belongs to the ${k}?`,
  ],
  [
    (k) => `Under what marking is the ${k} registered?`,
    (k) => `If you checked the ${k}, what mark would you find?`,
    (k) => `The ${k} is labelled with what?`,
    (k) => `Read me the label on the ${k}.`,
    (k) => `What identifier has the ${k} been given?`,
    (k) => `How is the ${k} marked?`,
  ],
);

export const NIAH_FRAMES: Frame[] = [
  ...defineFrames(
    'niah',
    'needle',
    [
      (s) => `The code of the ${s.key} is ${s.value}.`,
      (s) => `The ${s.key} carries the code ${s.value}.`,
      (s) => `Stamped on the ${s.key} is the code ${s.value}.`,
      (s) => `${s.value} is the code of the ${s.key}.`,
    ],
    [
      (s) => `Anyone checking the ${s.key} would find it marked ${s.value}.`,
      (s) => `The register lists ${s.value} against the ${s.key}.`,
      (s) => `Engraved beneath the ${s.key}, one reads ${s.value}.`,
    ],
  ),
  ...defineFrames(
    'niah',
    'tense',
    [(s) => `The code of the ${s.key} used to be ${s.value}.`],
    [(s) => `Before the refit, the register listed ${s.value} against the ${s.key}.`],
  ),
  ...defineFrames(
    'niah',
    'negation',
    [(s) => `The code of the ${s.key} is not ${s.value}.`],
    [(s) => `Nobody ever marked the ${s.key} ${s.value}.`],
  ),
  ...defineFrames(
    'niah',
    'hypothetical',
    [(s) => `If the ${s.key} were relabelled, its code would be ${s.value}.`],
    [(s) => `Had ${s.actor} finished the relabelling, the ${s.key} would now read ${s.value}.`],
  ),
  ...defineFrames(
    'niah',
    'reported',
    [(s) => `Some say the ${s.key} carries the code ${s.value}.`],
    [(s) => `A rumour in the yard held that the ${s.key} was marked ${s.value}.`],
  ),
  ...defineFrames(
    'niah',
    'correction',
    [
      (s) =>
        `The ${s.key} was thought to carry the code ${s.value}, or so it was believed until the labels were checked.`,
    ],
    [(s) => `An old list marked the ${s.key} ${s.value}, a mistake ${s.actor} corrected long ago.`],
  ),
];
