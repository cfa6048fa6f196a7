import type { EvalSuiteReport, EvalSummary, EvalSummaryStats, EvalSystemReport, Spread } from './suite';

/** A fixed-width table: first column left-aligned, the rest right-aligned. */
function table(header: readonly string[], rows: readonly string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/** A figure over seeds: the value for one run; "mean ±sd (min–max)" for several. */
function cell(spread: Spread | null, runs: number, scale: number, digits: number, unit = ''): string {
  if (spread === null) return '—';
  const f = (v: number) => (scale * v).toFixed(digits);
  if (runs === 1) return `${f(spread.mean)}${unit}`;
  return `${f(spread.mean)}${unit} ±${f(spread.sd)} (${f(spread.min)}–${f(spread.max)})`;
}

/** The report's groups in table order: overall, per type, per context bucket, per phrasing family. */
type Group = [name: string, pick: (s: EvalSummary) => EvalSummaryStats | undefined];

function groupsOf(summary: EvalSummary): Group[] {
  return [
    ['overall', (s) => s.overall],
    ...Object.keys(summary.byType).map((k): Group => [`type ${k}`, (s) => s.byType[k]]),
    ...Object.keys(summary.byBucket).map((k): Group => [`ctx ${k}`, (s) => s.byBucket[k]]),
    ...Object.keys(summary.byPhrasing).map((k): Group => [`phrasing ${k}`, (s) => s.byPhrasing[k]]),
  ];
}

function usageRows(system: EvalSystemReport): string[][] {
  const runs = system.runs.length;
  return groupsOf(system.summary).map(([name, pick]) => {
    const s = pick(system.summary)!;
    return [
      `${system.system} ${name}`,
      String(s.n),
      String(s.excluded),
      cell(s.meanLlmCalls, runs, 1, 2),
      cell(s.callingShare, runs, 100, 1, '%'),
      cell(s.meanMaxDepth, runs, 1, 2),
      String(s.maxDepth),
      String(s.leafCalls),
      s.leafScored === 0 ? '—' : `${cell(s.leafAccuracy, runs, 100, 1, '%')} of ${s.leafScored}`,
      s.leafNoEvidence === 0 ? '0' : `${s.leafNoEvidence} (${s.leafNoEvidenceAnswered} answered)`,
    ];
  });
}

/**
 * The suite report as text: accuracy of the policy and of each baseline side by side (overall, per task type,
 * context bucket and phrasing family), then the policy-driven systems' use of `llm()`: calls per episode, share of
 * episodes calling, recursion depth, and leaf sub-call accuracy against the gold sub-answers. Sampled runs show
 * "mean ±sd (min–max)" over the seeds.
 */
export function formatEvalTable(report: EvalSuiteReport): string {
  const policy = report.systems[0];
  const accuracyRows = groupsOf(policy.summary).map(([name, pick]) => [
    name,
    String(pick(policy.summary)!.n),
    ...report.systems.map((system) => {
      const s = pick(system.summary);
      return s === undefined ? '—' : cell(s.accuracy, system.runs.length, 100, 1, '%');
    }),
  ]);
  const usage = report.systems.filter((s) => s.system !== 'regex');
  const seeds = report.mode === 'sampled' ? `, seeds ${report.seeds.join(',')}` : '';
  return [
    `policy version ${report.policyVersion}, ${report.mode}${seeds}, ${report.tasks} tasks, ` +
      `${(report.wallMs / 1000).toFixed(1)} s`,
    '',
    'accuracy',
    ...table(['group', 'n', ...report.systems.map((s) => s.system)], accuracyRows),
    '',
    'llm() use (calls that returned; leaf accuracy against the gold sub-answer where the chunk held its evidence;',
    'reads of chunks without evidence, and how many of them were answered with a value instead of "unknown")',
    ...table(
      ['system group', 'n', 'excluded', 'calls/ep', 'calling', 'depth', 'max', 'leaves', 'leaf acc', 'no evidence'],
      usage.flatMap(usageRows),
    ),
  ].join('\n');
}
