import { TASK_TYPES, escapeRegExp, type Task, type TaskMeta, type TaskType } from '@fathom/contracts';
import { FRAMES, QUESTIONS, distractorInventable, inventable, type Frame } from './frames';
import { theList } from './text';

/**
 * Structural checks of a generated task against its structured ground truth (`meta`), behind `fathom data
 * validate`. Open frames cannot be re-read by a fixed regex solver, so instead of re-deriving the answer from the text
 * these checks tie the text to the truth: the question is the recorded template rendered with the keys, the frames
 * are known and of the question's family, every evidence sentence sits in the context at a recorded needle position,
 * the answer follows from the sub-answers, and every sentence that names a key is an instance of one of the type's
 * frames (so no key hides in filler). A task generated with invented wording (`inventedShare`) lists its invented
 * kinds as `<type>.<kind>.invented`; those sentences have no fixed wording, so in such a task a sentence that is no
 * written frame must name a key as a whole phrase instead.
 */

const SLOT = '\u0001';

/** A frame as a whole-sentence regex, every slot a wildcard ("A"/"An" before a slot accepts both). */
function frameRegex(frame: Frame): RegExp {
  const text = frame.render({ key: SLOT, value: SLOT, other: SLOT, actor: SLOT });
  const source = escapeRegExp(text)
    .replace(new RegExp(`\\b(A|a) (?=${SLOT})`, 'g'), '$1n? ')
    .replace(new RegExp(SLOT, 'g'), '(.+?)');
  return new RegExp(`^${source}$`);
}

const FRAME_PATTERNS = Object.fromEntries(
  TASK_TYPES.map((type) => [type, FRAMES[type].map((frame) => ({ frame, pattern: frameRegex(frame) }))]),
) as Record<TaskType, { frame: Frame; pattern: RegExp }[]>;
const FRAME_BY_ID = new Map(TASK_TYPES.flatMap((type) => FRAMES[type].map((f) => [f.id, f] as const)));
const QUESTION_BY_ID = new Map(TASK_TYPES.flatMap((type) => QUESTIONS[type].map((p) => [p.id, { type, p }] as const)));

/** The sentences of a context: paragraphs split on blank lines, sentences on the space after a full stop. */
export function sentencesOf(context: string): string[] {
  return context.split(/(?<=\.)\s+/).filter((s) => s !== '');
}

/** Whether `id` names an invented kind of `type` (`<type>.<kind>.invented`, the kind inventable for the type). */
function inventedFrameOf(type: TaskType, id: string): boolean {
  const [idType, kind, suffix, extra] = id.split('.');
  return (
    idType === type &&
    suffix === 'invented' &&
    extra === undefined &&
    (inventable(type, kind) || distractorInventable(type, kind))
  );
}

function wholeWordCount(text: string, word: string): number {
  return text.match(new RegExp(`(?<![A-Za-z])${escapeRegExp(word)}(?![A-Za-z])`, 'gi'))?.length ?? 0;
}

function answerIssues(task: Task, meta: TaskMeta): string[] {
  const subs = meta.subquestions;
  const answer = (i: number) => subs[i]?.answer;
  switch (task.type) {
    case 'niah':
    case 'extractive':
    case 'tracking':
      if (subs.length !== 1) return [`a ${task.type} task has one sub-question, this one has ${subs.length}`];
      return answer(0) === task.answer ? [] : [`answer "${task.answer}" is not the sub-answer "${answer(0)}"`];
    case 'multi_needle': {
      if (subs.length !== meta.keys.length) return [`${meta.keys.length} items but ${subs.length} sub-questions`];
      const total = subs.reduce((sum, s) => sum + Number(s.answer.replace(/,/g, '')), 0);
      return String(total) === task.answer ? [] : [`answer "${task.answer}" is not the sum of the prices (${total})`];
    }
    case 'multi_hop':
      if (subs.length !== 2) return [`a multi_hop task has two sub-questions, this one has ${subs.length}`];
      if (meta.keys[1] !== answer(0) || !subs[1].question.includes(answer(0)))
        return [`the second hop does not ask about the first hop's answer "${answer(0)}"`];
      return answer(1) === task.answer ? [] : [`answer "${task.answer}" is not the second hop's answer "${answer(1)}"`];
    case 'counting': {
      const count = wholeWordCount(task.context, meta.key);
      return String(count) === task.answer
        ? []
        : [`"${meta.key}" occurs ${count} times as a word, answer says ${task.answer}`];
    }
  }
}

/** Every way `task` disagrees with its `meta`; empty when it agrees or has no meta (users' own datasets). */
export function structuralIssues(task: Task): string[] {
  const { meta } = task;
  if (meta === undefined) return [];
  const issues: string[] = [];
  const phrasing = QUESTION_BY_ID.get(meta.phrasing.template);
  if (phrasing === undefined) issues.push(`unknown question template "${meta.phrasing.template}"`);
  else {
    if (phrasing.type !== task.type) issues.push(`question template ${phrasing.p.id} is not a ${task.type} template`);
    if (phrasing.p.family !== meta.phrasing.family)
      issues.push(`question template ${phrasing.p.id} is not of the ${meta.phrasing.family} family`);
    const rendered = phrasing.p.render(task.type === 'multi_needle' ? theList(meta.keys) : meta.key);
    if (rendered !== task.question) issues.push(`question is not template ${phrasing.p.id} rendered with the keys`);
  }
  for (const id of meta.frames) {
    const frame = FRAME_BY_ID.get(id);
    if (inventedFrameOf(task.type, id)) continue;
    if (frame === undefined) issues.push(`unknown frame "${id}"`);
    else if (frame.type !== task.type || frame.family !== meta.phrasing.family)
      issues.push(`frame ${id} is not a ${meta.phrasing.family} ${task.type} frame`);
  }
  const needles = new Set(task.needle_positions.map((p) => task.context.slice(p.start, p.end)));
  for (const [i, sub] of meta.subquestions.entries())
    for (const sentence of sub.evidence)
      if (!needles.has(sentence))
        issues.push(`evidence of sub-question ${i} is not a needle sentence of the context: "${sentence}"`);
  for (const [i, sub] of meta.subquestions.entries())
    if (!sub.evidence.some((sentence) => sentence.includes(sub.answer)))
      issues.push(`sub-answer ${i} "${sub.answer}" is not written in its evidence, so no reader can copy it`);
  issues.push(...answerIssues(task, meta));

  const keys = meta.keys.map((k) => k.toLowerCase());
  const patterns = FRAME_PATTERNS[task.type];
  const invented = meta.frames.some((id) => inventedFrameOf(task.type, id));
  for (const sentence of sentencesOf(task.context)) {
    const lower = sentence.toLowerCase();
    const key = keys.find((k) => lower.includes(k));
    if (key === undefined) continue;
    const matches = patterns.filter(({ pattern }) => pattern.test(sentence)).map(({ frame }) => frame.id);
    if (matches.length === 0 && invented) {
      if (wholeWordCount(sentence, key) === 0)
        issues.push(`a sentence names "${key}" inside a longer word: "${sentence}"`);
    } else if (matches.length === 0)
      issues.push(`a sentence names "${key}" but is no ${task.type} frame: "${sentence}"`);
    else if (!matches.some((id) => meta.frames.includes(id)))
      issues.push(`sentence uses frame ${matches.join(' or ')}, which meta.frames does not list: "${sentence}"`);
  }
  return issues;
}
