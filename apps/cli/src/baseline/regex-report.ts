import type { Task } from '@fathom/contracts';
import { isCorrect } from '@fathom/rewards';
import { runRegexBaseline } from '@fathom/tasks';

/** Accuracy of one slice of tasks. */
export interface Accuracy {
  n: number;
  correct: number;
  accuracy: number;
}

/** The regex baseline's accuracy overall, per type, per phrasing family (seen = train, unseen = heldout) and both. */
export interface RegexBaselineReport {
  tasks: number;
  overall: Accuracy;
  byType: Record<string, Accuracy>;
  byFamily: Record<string, Accuracy>;
  byTypeAndFamily: Record<string, Accuracy>;
}

/** "seen" for train-family phrasings, "unseen" for heldout-family ones, "none" for tasks without meta. */
export function familyLabel(task: Task): string {
  const family = task.meta?.phrasing.family;
  if (family === undefined) return 'none';
  return family === 'train' ? 'seen' : 'unseen';
}

/** Accumulates graded regex-baseline answers; grading is the reward's correctness (`isCorrect` of @fathom/rewards). */
export class RegexBaselineAccumulator {
  private readonly counts = new Map<string, { n: number; correct: number }>();
  private tasks = 0;

  /** Runs the baseline on `task`, grades it and records it; returns the answer and whether it was correct. */
  add(task: Task): { answer: string; correct: boolean } {
    const answer = runRegexBaseline(task);
    const correct = answer !== '' && isCorrect(answer, task);
    const family = familyLabel(task);
    this.tasks++;
    for (const slice of ['all', `type:${task.type}`, `family:${family}`, `both:${task.type}/${family}`]) {
      const c = this.counts.get(slice) ?? { n: 0, correct: 0 };
      c.n++;
      if (correct) c.correct++;
      this.counts.set(slice, c);
    }
    return { answer, correct };
  }

  result(): RegexBaselineReport {
    const slices = (prefix: string): Record<string, Accuracy> =>
      Object.fromEntries(
        [...this.counts]
          .filter(([slice]) => slice.startsWith(prefix))
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([slice, { n, correct }]) => [slice.slice(prefix.length), { n, correct, accuracy: correct / n }]),
      );
    const all = this.counts.get('all') ?? { n: 0, correct: 0 };
    return {
      tasks: this.tasks,
      overall: { ...all, accuracy: all.n === 0 ? 0 : all.correct / all.n },
      byType: slices('type:'),
      byFamily: slices('family:'),
      byTypeAndFamily: slices('both:'),
    };
  }
}

const pct = (a: Accuracy): string => `${(100 * a.accuracy).toFixed(1).padStart(5)}%  (${a.correct}/${a.n})`;

/** Human-readable table of a report. */
export function formatRegexBaseline(title: string, report: RegexBaselineReport): string {
  const lines = [`${title}: ${report.tasks} tasks, accuracy ${pct(report.overall)}`, '  by phrasing family:'];
  for (const [family, a] of Object.entries(report.byFamily)) lines.push(`    ${family.padEnd(14)} ${pct(a)}`);
  lines.push('  by type:');
  for (const [type, a] of Object.entries(report.byType)) {
    const families = Object.entries(report.byTypeAndFamily)
      .filter(([key]) => key.startsWith(`${type}/`))
      .map(([key, f]) => `${key.slice(type.length + 1)} ${(100 * f.accuracy).toFixed(1)}% of ${f.n}`);
    lines.push(`    ${type.padEnd(14)} ${pct(a)}   ${families.join(', ')}`);
  }
  return lines.join('\n');
}
