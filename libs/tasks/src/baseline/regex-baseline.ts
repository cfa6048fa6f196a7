import type { Task, TaskType } from '@fathom/contracts';

/**
 * The no-model baseline: for each task type, the strongest regex-only program we could write by reading TRAIN-family
 * tasks — their question phrasings, needle frames and distractor frames — with a best-effort fallback (guess the key
 * as the longest rare run of question words, then take the first value-shaped token near it) for text it does not
 * recognise. A program is plain JavaScript source: the body of `function (question, ctx) { … }` returning the
 * answer string, so the same text runs on the host (`runRegexBaseline`) and in the REPL sandbox. Measured numbers:
 * docs/DATASETS.md ("Regex-only baseline"); `fathom baseline regex` reproduces them.
 */

/** Helpers every program starts with. */
const PRELUDE = String.raw`
const esc = (s) => s.replace(/[.*+?^$()|[\]{}\\]/g, '\\$&');
const START = '(?<=^|[.]\\s+)';
const sentences = ctx.split(/(?<=[.])\s+/);
const parse = (patterns) => {
  for (const p of patterns) {
    const m = p.exec(question);
    if (m) return m[1];
  }
  return null;
};
const first = (sources) => {
  for (const s of sources) {
    const m = new RegExp(s).exec(ctx);
    if (m) return m[1];
  }
  return null;
};
const DECOY_PART = /^ (?:stand|cover|case|box|shelf|frame|rack|lid)\b/;
const mentions = (key) =>
  sentences.filter((s) => {
    for (let i = s.indexOf(key); i >= 0; i = s.indexOf(key, i + 1)) {
      const before = s.slice(0, i);
      const after = s.slice(i + key.length);
      if (!/[A-Za-z-]$/.test(before) && !/^[A-Za-z-]/.test(after) && !DECOY_PART.test(after)) return true;
    }
    return false;
  });
const guessKey = () => {
  const words = question.replace(/[?.!,;:"]/g, ' ').split(/\s+/).filter(Boolean);
  for (let len = Math.min(4, words.length); len >= 1; len--)
    for (let i = 0; i + len <= words.length; i++) {
      const phrase = words.slice(i, i + len).join(' ').replace(/^the /i, '').replace(/'s$/, '');
      if (phrase.length < 4) continue;
      const n = ctx.split(phrase).length - 1;
      if (n >= 1 && n <= 30) return phrase;
    }
  return null;
};
const capitalsOutside = (sentence, name) =>
  (sentence.match(/\b[A-Z][a-z]+\b/g) || []).filter((w) => !name.includes(w) && !/^(The|It|Some|If|Had|A|An|When|According|Contrary|Delegates|Until|Gossip|Years|Nobody|Letters)$/.test(w));
`;

const NIAH = String.raw`
const key = parse([
  /^What is the code of the (.+)\?$/, /^What code does the (.+) carry\?$/, /^Which code is on the (.+)\?$/,
  /^Tell me the code of the (.+)\.$/, /^What is the (.+)'s code\?$/, /^Give the code stamped on the (.+)\.$/,
  /^Which code belongs to the (.+)\?$/,
]);
const CODE = '([A-Z]\\d-[A-Z]{2}\\d)';
if (key) {
  const k = esc(key);
  const found = first([
    START + 'The code of the ' + k + ' is ' + CODE + '\\.',
    START + 'The ' + k + ' carries the code ' + CODE + '\\.',
    START + 'Stamped on the ' + k + ' is the code ' + CODE + '\\.',
    START + CODE + ' is the code of the ' + k + '\\.',
  ]);
  if (found) return found;
}
const guess = key || guessKey();
if (!guess) return '';
for (const s of mentions(guess)) {
  const m = /\b[A-Z]\d-[A-Z]{2}\d\b/.exec(s);
  if (m) return m[0];
}
return '';
`;

const EXTRACTIVE = String.raw`
const key = parse([
  /^In which city was the (.+) signed\?$/, /^Where was the (.+) signed\?$/, /^Which city saw the signing of the (.+)\?$/,
  /^Tell me where the (.+) was signed\.$/, /^What city was the (.+) signed in\?$/, /^The (.+) was signed in which city\?$/,
  /^Name the city where the (.+) was signed\.$/,
]);
const CITY = '([A-Z][a-z]+)';
if (key) {
  const k = esc(key);
  const found = first([
    START + 'The ' + k + ' was signed in ' + CITY + '\\.',
    START + 'Delegates signed the ' + k + ' in ' + CITY + '\\.',
    START + 'It was in ' + CITY + ' that the ' + k + ' was signed\\.',
    START + CITY + ' hosted the signing of the ' + k + '\\.',
  ]);
  if (found) return found;
}
const guess = key || guessKey();
if (!guess) return '';
for (const s of mentions(guess)) {
  const names = capitalsOutside(s, guess);
  if (names.length > 0) return names[names.length - 1];
}
return '';
`;

const MULTI_NEEDLE = String.raw`
const list = parse([
  /^What is the total price, in dollars, of (.+)\?$/, /^How much do (.+) cost altogether, in dollars\?$/,
  /^In dollars, what do (.+) cost in total\?$/, /^What would (.+) cost together, in dollars\?$/,
  /^Add up the prices of (.+)\. What is the total in dollars\?$/, /^What is the combined price of (.+), in dollars\?$/,
  /^How many dollars do (.+) cost in all\?$/,
]);
const items = list
  ? list.split(/, | and /).map((i) => i.replace(/^the /, ''))
  : (question.match(/\bthe [A-Z]?[a-z]+(?:[ -][a-z]+)?(?=,| and\b|\?|\.| cost\b| at\b| in\b)/g) || [])
      .map((i) => i.slice(4))
      .filter((i) => ctx.includes(i));
if (items.length === 0) return '';
const PRICE = '\\$?(\\d{1,3}(?:,\\d{3})+|\\d+)';
let total = 0;
for (const item of items) {
  const k = esc(item);
  let price = first([
    START + 'The ' + k + ' costs \\$' + PRICE.slice(3) + '\\.',
    START + 'The price of the ' + k + ' is \\$' + PRICE.slice(3) + '\\.',
    START + 'For \\$' + PRICE.slice(3) + ' you can buy the ' + k + '\\.',
    START + 'An? ' + k + ' sells for ' + PRICE.slice(3) + ' dollars\\.',
  ]);
  if (price === null)
    for (const s of mentions(item)) {
      const m = new RegExp(PRICE).exec(s);
      if (m) {
        price = m[1];
        break;
      }
    }
  if (price === null) return '';
  total += Number(price.replace(/,/g, ''));
}
return String(total);
`;

const COUNTING = String.raw`
const word = parse([/"([^"]+)"/]) || parse([/'([^']+)'/]);
if (!word) return '';
return String((ctx.match(new RegExp('(?<![A-Za-z])' + esc(word) + '(?![A-Za-z])', 'gi')) || []).length);
`;

const TRACKING = String.raw`
const key = parse([
  /^Where is the (.+) at the end of the document\?$/, /^Where does the (.+) end up\?$/,
  /^After all the moves described, where is the (.+)\?$/, /^Where is the (.+) kept by the end\?$/,
  /^In which place does the (.+) finish\?$/, /^What is the final location of the (.+)\?$/,
  /^Where can the (.+) be found once everything is over\?$/,
]);
if (key) {
  const k = esc(key);
  const moves = [
    new RegExp('^At the start of the week the ' + k + ' was in ([A-Z][a-z]+)\\.$'),
    new RegExp('^[A-Z][a-z]+ (?:moved|carried) the ' + k + ' to ([A-Z][a-z]+)\\.$'),
    new RegExp('^The ' + k + ' was taken to ([A-Z][a-z]+)\\.$'),
    new RegExp('^[A-Z][a-z]+ handed the ' + k + ' to [A-Z][a-z]+ [A-Z][a-z]+, who took it to ([A-Z][a-z]+)\\.$'),
  ];
  let at = null;
  for (const s of mentions(key))
    for (const move of moves) {
      const m = move.exec(s);
      if (m) at = m[1];
    }
  if (at) return at;
}
const guess = key || guessKey();
if (!guess) return '';
const about = mentions(guess);
for (let i = about.length - 1; i >= 0; i--) {
  const names = capitalsOutside(about[i], guess);
  if (names.length > 0) return names[names.length - 1];
}
return '';
`;

const MULTI_HOP = String.raw`
const key = parse([
  /^In which city does the owner of the (.+) live\?$/, /^Where does the owner of the (.+) live\?$/,
  /^The (.+) belongs to someone\. In which city do they live\?$/, /^Which city is home to the person who owns the (.+)\?$/,
  /^Where is the home of the (.+)'s owner\?$/, /^What city does the (.+)'s owner live in\?$/,
  /^Whoever owns the (.+) lives in which city\?$/,
]);
const PERSON = '([A-Z][a-z]+ [A-Z][a-z]+)';
const CITY = '([A-Z][a-z]+)';
let owner = null;
if (key) {
  const k = esc(key);
  owner = first([
    START + 'The ' + k + ' belongs to ' + PERSON + '\\.',
    START + PERSON + ' owns the ' + k + '\\.',
    START + 'The owner of the ' + k + ' is ' + PERSON + '\\.',
  ]);
}
if (owner) {
  const p = esc(owner);
  const city = first([
    START + p + ' lives in ' + CITY + '\\.',
    START + p + ' has a house in ' + CITY + '\\.',
    START + 'The home of ' + p + ' is in ' + CITY + '\\.',
  ]);
  if (city) return city;
}
const guess = key || guessKey();
if (!guess) return '';
if (!owner)
  for (const s of mentions(guess)) {
    const m = /\b(?!The |It |Some |If |Had |Until |Gossip |A )[A-Z][a-z]+ [A-Z][a-z]+\b/.exec(s);
    if (m) {
      owner = m[0];
      break;
    }
  }
if (!owner) return '';
for (const s of mentions(owner)) {
  if (s.includes(guess)) continue;
  const names = capitalsOutside(s, owner);
  if (names.length > 0) return names[names.length - 1];
}
return '';
`;

/** The program of each type: JavaScript source of a function body over `question` and `ctx`. */
export const REGEX_BASELINE: Readonly<Record<TaskType, string>> = {
  niah: PRELUDE + NIAH,
  extractive: PRELUDE + EXTRACTIVE,
  multi_needle: PRELUDE + MULTI_NEEDLE,
  counting: PRELUDE + COUNTING,
  tracking: PRELUDE + TRACKING,
  multi_hop: PRELUDE + MULTI_HOP,
};

const compiled = new Map<TaskType, (question: string, ctx: string) => unknown>();

/**
 * Runs the regex baseline program of `task.type` on the host (`new Function`) and returns its answer ("" when it
 * finds none). The program sees only `task.question` and `task.context`, never the gold answer or `meta`.
 */
export function runRegexBaseline(task: Pick<Task, 'type' | 'question' | 'context'>): string {
  let program = compiled.get(task.type);
  if (program === undefined) {
    program = new Function('question', 'ctx', REGEX_BASELINE[task.type]) as (question: string, ctx: string) => unknown;
    compiled.set(task.type, program);
  }
  return String(program(task.question, task.context) ?? '');
}
