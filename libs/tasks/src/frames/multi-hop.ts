import { definePhrasings, defineFrames, type Frame, type Phrasing } from './types';

/**
 * multi_hop: where the owner of an object lives. Ownership frames: key = object, value = owner. Residence frames
 * (kinds prefixed "home"): key = person, value = city. The answer needs both hops.
 */
export const MULTI_HOP_QUESTIONS: Phrasing[] = definePhrasings(
  'multi_hop.q',
  [
    (k) => `In which city does the owner of the ${k} live?`,
    (k) => `Where does the owner of the ${k} live?`,
    (k) => `The ${k} belongs to someone. In which city do they live?`,
    (k) => `Which city is home to the person who owns the ${k}?`,
    (k) => `Where is the home of the ${k}'s owner?`,
    (k) => `What city does the ${k}'s owner live in?`,
    (k) => `Whoever owns the ${k} lives in which city?`,
  ],
  [
    (k) => `Find who the ${k} belongs to; where is that person's home?`,
    (k) => `Name the town where the holder of the ${k} resides.`,
    (k) => `The ${k} has an owner. Which place do they call home?`,
    (k) => `Where would you post a letter to the person the ${k} belongs to?`,
    (k) => `In what place does the proprietor of the ${k} reside?`,
    (k) => `Which town houses the ${k}'s proprietor?`,
  ],
);

/** First hop: who owns the object. */
export const MULTI_HOP_OWNER_QUESTIONS: Phrasing[] = definePhrasings(
  'multi_hop.owner',
  [(k) => `Who owns the ${k}?`, (k) => `Who is the owner of the ${k}?`],
  [(k) => `To whom does the ${k} belong?`, (k) => `Whose property is the ${k}?`],
);

/**
 * The first hop asked without copying the object: this prefix before the task question itself. A program that
 * cannot copy the object's name from the question finds its sentences with `search(question)` and asks
 * `llm(OWNER_OF_QUESTION + question, part)`; the reader reads the owner of the object the question names.
 */
export const OWNER_OF_QUESTION = 'Who is the owner? ';

/** Second hop: where a person lives. */
export const MULTI_HOP_HOME_QUESTIONS: Phrasing[] = definePhrasings(
  'multi_hop.home',
  [(p) => `Where does ${p} live?`, (p) => `In which city does ${p} live?`],
  [(p) => `Where does ${p} reside?`, (p) => `Which town is home to ${p}?`],
);

export const MULTI_HOP_FRAMES: Frame[] = [
  ...defineFrames(
    'multi_hop',
    'owner',
    [
      (s) => `The ${s.key} belongs to ${s.value}.`,
      (s) => `${s.value} owns the ${s.key}.`,
      (s) => `The owner of the ${s.key} is ${s.value}.`,
    ],
    [
      (s) => `The ${s.key} is the property of ${s.value}.`,
      (s) => `It is ${s.value} who holds the deed to the ${s.key}.`,
    ],
  ),
  ...defineFrames(
    'multi_hop',
    'home',
    [
      (s) => `${s.key} lives in ${s.value}.`,
      (s) => `${s.key} has a house in ${s.value}.`,
      (s) => `The home of ${s.key} is in ${s.value}.`,
    ],
    [(s) => `${s.key} resides in ${s.value}.`, (s) => `${s.value} is where ${s.key} keeps house.`],
  ),
  ...defineFrames(
    'multi_hop',
    'tense',
    [(s) => `The ${s.key} used to belong to ${s.value}.`],
    [(s) => `Until the auction, the ${s.key} was the property of ${s.value}.`],
  ),
  ...defineFrames(
    'multi_hop',
    'negation',
    [(s) => `The ${s.key} does not belong to ${s.value}.`],
    [(s) => `${s.value} has never held the deed to the ${s.key}.`],
  ),
  ...defineFrames(
    'multi_hop',
    'hypothetical',
    [(s) => `If ${s.value} had won the auction, the ${s.key} would belong to ${s.value}.`],
    [(s) => `Had the will been read differently, ${s.value} would hold the deed to the ${s.key}.`],
  ),
  ...defineFrames(
    'multi_hop',
    'reported',
    [(s) => `Some say ${s.value} owns the ${s.key}.`],
    [(s) => `Gossip at the market had ${s.value} as the proprietor of the ${s.key}.`],
  ),
  ...defineFrames(
    'multi_hop',
    'home_tense',
    [(s) => `${s.key} used to live in ${s.value}.`],
    [(s) => `Years ago ${s.key} resided in ${s.value}.`],
  ),
  ...defineFrames(
    'multi_hop',
    'home_reported',
    [(s) => `Some say ${s.key} lives in ${s.value}.`],
    [(s) => `A neighbour believed ${s.key} kept house in ${s.value}.`],
  ),
];
