import { TASK_TYPES } from '@fathom/contracts';
import type { DatasetStats, Distribution } from '@fathom/tasks';

const fmt = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function dist(d: Distribution | undefined, digits = 0): string {
  if (d === undefined) return 'n/a';
  return `min ${fmt(d.min, digits)}  median ${fmt(d.median, digits)}  p90 ${fmt(d.p90, digits)}  max ${fmt(d.max, digits)}  mean ${fmt(d.mean, digits)}`;
}

/** Human-readable rendering of `fathom data stats`. */
export function formatStats(file: string, stats: DatasetStats): string {
  const lines = [`${file}: ${stats.tasks} tasks`];
  lines.push(`  splits: ${Object.entries(stats.bySplit).map(([s, n]) => `${s} ${n}`).join(', ') || 'none'}`);
  lines.push(
    `  phrasing families: ${Object.entries(stats.byFamily).map(([f, n]) => `${f} ${n}`).join(', ') || 'none'}`,
  );
  lines.push(`  context tokens (estimateTokens): ${dist(stats.contextTokens)}`);
  lines.push(`  needle depth: ${dist(stats.needleDepth, 2)}`);
  lines.push('  by type:');
  for (const type of TASK_TYPES) {
    const n = stats.byType[type];
    const share = stats.tasks === 0 ? 0 : n / stats.tasks;
    lines.push(`    ${type.padEnd(13)} ${String(n).padStart(6)}  (${fmt(100 * share, 1)}%)`);
    if (n === 0) continue;
    const variants = Object.entries(stats.variantRates[type]);
    lines.push(
      `      variants: ${variants.length === 0 ? 'none' : variants.map(([v, r]) => `${v} ${fmt(100 * r, 1)}%`).join(', ')}`,
    );
    const a = stats.answers[type];
    const numeric = a.numeric ? `; numeric ${dist(a.numeric)}` : '';
    lines.push(`      answers: ${a.distinct} distinct, most common ${fmt(100 * a.topShare, 1)}%${numeric}`);
  }
  return lines.join('\n');
}
