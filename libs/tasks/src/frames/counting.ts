import { capitalise, plural } from '../text';
import { definePhrasings, defineFrames, type Frame, type Phrasing } from './types';

/**
 * counting: whole-word occurrences of a word in any letter case. key = the word (value and other are unused;
 * compound frames get the longer word as key).
 */
const TRAIN_RULES = 'Count whole words in any letter case; plurals and longer words that contain it do not count.';
const HELDOUT_RULES = 'Only the bare word counts, capitalised or not; ignore plurals and words built around it.';

export const COUNTING_QUESTIONS: Phrasing[] = definePhrasings(
  'counting.q',
  [
    (k) => `How many times does the word "${k}" appear in the document? ${TRAIN_RULES}`,
    (k) => `How often does "${k}" occur in the text? ${TRAIN_RULES}`,
    (k) => `Count the occurrences of the word "${k}". ${TRAIN_RULES}`,
    (k) => `What is the number of times "${k}" is written in the document? ${TRAIN_RULES}`,
    (k) => `How many occurrences of "${k}" are there? ${TRAIN_RULES}`,
    (k) => `Count how often the word "${k}" is used. ${TRAIN_RULES}`,
    (k) => `How many times is "${k}" mentioned? ${TRAIN_RULES}`,
  ],
  [
    (k) => `Tally every appearance of '${k}' in the text: how many are there? ${HELDOUT_RULES}`,
    (k) => `If you marked each '${k}' in the document, how many marks would you make? ${HELDOUT_RULES}`,
    (k) => `What count do you get for the word '${k}'? ${HELDOUT_RULES}`,
    (k) => `Give the frequency of '${k}' in the document. ${HELDOUT_RULES}`,
    (k) => `On how many occasions does '${k}' turn up? ${HELDOUT_RULES}`,
    (k) => `Report the number of '${k}' tokens in the text. ${HELDOUT_RULES}`,
  ],
);

export const COUNTING_FRAMES: Frame[] = [
  ...defineFrames(
    'counting',
    'needle',
    [
      (s) => `Someone left the ${s.key} near the door.`,
      (s) => `Nobody mentioned the ${s.key} until later.`,
      (s) => `The note said only one word: ${s.key}.`,
      (s) => `They talked about the ${s.key} for an hour.`,
      (s) => `It was hard to forget the ${s.key}.`,
      (s) => `A child drew the ${s.key} on a slate.`,
    ],
    [
      (s) => `${s.actor} kept the ${s.key} in a tin box.`,
      (s) => `There was a ${s.key} painted on the barn wall.`,
      (s) => `The ferry smelled faintly of ${s.key}.`,
      (s) => `Every spring the ${s.key} came back.`,
      (s) => `Under the stairs lay a dusty ${s.key}.`,
    ],
  ),
  ...defineFrames(
    'counting',
    'capitalised',
    [(s) => `${capitalise(s.key)} was written on the first page.`],
    [(s) => `The banner shouted ${s.key.toUpperCase()} in red paint.`],
  ),
  ...defineFrames(
    'counting',
    'plural',
    [(s) => `Two ${plural(s.key)} were missing from the list.`],
    [(s) => `${s.actor} counted the ${plural(s.key)} twice.`],
  ),
  ...defineFrames(
    'counting',
    'compound',
    [(s) => `Everyone admired the ${s.key}.`],
    [(s) => `${s.actor} bought a second ${s.key} at the fair.`],
  ),
];
