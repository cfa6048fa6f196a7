import { definePhrasings, defineFrames, type Frame, type Phrasing } from './types';

/** extractive: the city where an agreement was signed. key = agreement, value = city. */
export const EXTRACTIVE_QUESTIONS: Phrasing[] = definePhrasings(
  'extractive.q',
  [
    (k) => `In which city was the ${k} signed?`,
    (k) => `Where was the ${k} signed?`,
    (k) => `Which city saw the signing of the ${k}?`,
    (k) => `Tell me where the ${k} was signed.`,
    (k) => `What city was the ${k} signed in?`,
    (k) => `The ${k} was signed in which city?`,
    (k) => `Name the city where the ${k} was signed.`,
  ],
  [
    (k) => `Where did the envoys put their names to the ${k}?`,
    (k) => `In what place were signatures gathered for the ${k}?`,
    (k) => `Which town witnessed the ${k} being concluded?`,
    (k) => `At what location was the ${k} made official?`,
    (k) => `Where were the signatures on the ${k} collected?`,
    (k) => `Where did the ${k} become binding?`,
  ],
);

export const EXTRACTIVE_FRAMES: Frame[] = [
  ...defineFrames(
    'extractive',
    'needle',
    [
      (s) => `The ${s.key} was signed in ${s.value}.`,
      (s) => `Delegates signed the ${s.key} in ${s.value}.`,
      (s) => `It was in ${s.value} that the ${s.key} was signed.`,
      (s) => `${s.value} hosted the signing of the ${s.key}.`,
    ],
    [
      (s) => `The signatures on the ${s.key} were gathered in ${s.value}.`,
      (s) => `When the ${s.key} was finally put to paper, the envoys sat in ${s.value}.`,
      (s) => `${s.value} is where the envoys put their names to the ${s.key}.`,
    ],
  ),
  ...defineFrames(
    'extractive',
    'near_miss',
    [(s) => `The ${s.key} was drafted in ${s.value}.`],
    [(s) => `The first talks on the ${s.key} opened in ${s.value}.`],
  ),
  ...defineFrames(
    'extractive',
    'negation',
    [(s) => `The ${s.key} was not signed in ${s.value}.`],
    [(s) => `Contrary to the guidebooks, no envoy put a name to the ${s.key} in ${s.value}.`],
  ),
  ...defineFrames(
    'extractive',
    'hypothetical',
    [(s) => `Had the talks gone well, the ${s.key} would have been signed in ${s.value}.`],
    [(s) => `If the storm had not closed the roads, the envoys would have gathered in ${s.value} for the ${s.key}.`],
  ),
  ...defineFrames(
    'extractive',
    'reported',
    [(s) => `Some say the ${s.key} was signed in ${s.value}.`],
    [(s) => `According to one travel account, the ${s.key} was concluded in ${s.value}.`],
  ),
  ...defineFrames(
    'extractive',
    'correction',
    [(s) => `The ${s.key} was long believed to have been signed in ${s.value}, but the archive proved otherwise.`],
    [(s) => `A printed guide placed the signing of the ${s.key} in ${s.value}, an error ${s.actor} later struck out.`],
  ),
];
