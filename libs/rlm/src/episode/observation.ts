/**
 * The observation fed back after a turn whose text held neither runnable code nor an answer. Part of the prompt
 * shape: an SFT teacher that shows such a turn must use this text. (Observations of code turns are
 * `observationText` of the teacher, the one formatter SFT and rollouts share.)
 */
export const NO_ACTION_OBSERVATION =
  'No ```js code block and no <answer> in your reply. Write code to run (answer(value) ends the episode), or reply with <answer>…</answer>.';
