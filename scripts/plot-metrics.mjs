// Draws metrics JSONL series as an SVG line chart, from measured rows only (no smoothing, no filling).
//   node scripts/plot-metrics.mjs METRICS.jsonl OUT.svg KEY[,KEY…] [--kind train] [--title "…"]
// A key may be a dotted path (e.g. rewards.correctness). Rows without a finite value for a key are skipped.
import { readFileSync, writeFileSync } from 'node:fs';

const [file, out, keyList, ...rest] = process.argv.slice(2);
if (!file || !out || !keyList) {
  console.error('usage: node scripts/plot-metrics.mjs METRICS.jsonl OUT.svg KEY[,KEY…] [--kind K] [--title T]');
  process.exit(2);
}
const option = (name) => {
  const i = rest.indexOf(name);
  return i === -1 ? undefined : rest[i + 1];
};
const kind = option('--kind');
const title = option('--title') ?? keyList;
const keys = keyList.split(',');
const rows = readFileSync(file, 'utf8')
  .split('\n')
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line))
  .filter((row) => kind === undefined || row.kind === kind);
const get = (row, path) => path.split('.').reduce((v, k) => (v == null ? undefined : v[k]), row);
const series = keys.map((key) => ({
  key,
  points: rows.map((r) => [r.step, get(r, key)]).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y)),
}));
const all = series.flatMap((s) => s.points);
if (all.length === 0) {
  console.error(`no finite values of ${keys.join(', ')} in ${file}`);
  process.exit(1);
}
const [W, H, L, R, T, B] = [720, 360, 60, 150, 30, 40];
const xs = all.map((p) => p[0]);
const ys = all.map((p) => p[1]);
const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
if (y0 === y1) [y0, y1] = [y0 - 0.5, y1 + 0.5];
const sx = (x) => L + ((x - x0) / (x1 - x0 || 1)) * (W - L - R);
const sy = (y) => H - B - ((y - y0) / (y1 - y0)) * (H - T - B);
const colours = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf'];
const fmt = (v) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(2));
const ticks = (a, b, n) => Array.from({ length: n + 1 }, (_, i) => a + ((b - a) * i) / n);
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');
const parts = [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
  `<rect width="${W}" height="${H}" fill="white"/>`,
  `<text x="${L}" y="18" font-size="14">${esc(title)}</text>`,
  `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="#333"/>`,
  `<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#333"/>`,
  `<text x="${(L + W - R) / 2}" y="${H - 8}" text-anchor="middle">step</text>`,
];
for (const y of ticks(y0, y1, 5)) {
  parts.push(`<line x1="${L - 4}" y1="${sy(y)}" x2="${W - R}" y2="${sy(y)}" stroke="#eee"/>`);
  parts.push(`<text x="${L - 6}" y="${sy(y) + 4}" text-anchor="end">${fmt(y)}</text>`);
}
for (const x of ticks(x0, x1, Math.min(5, x1 - x0 || 1))) {
  parts.push(`<text x="${sx(x)}" y="${H - B + 16}" text-anchor="middle">${Math.round(x)}</text>`);
}
series.forEach((s, i) => {
  const colour = colours[i % colours.length];
  const d = s.points.map(([x, y], j) => `${j === 0 ? 'M' : 'L'}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
  parts.push(`<path d="${d}" fill="none" stroke="${colour}" stroke-width="1.5"/>`);
  for (const [x, y] of s.points.length <= 60 ? s.points : []) {
    parts.push(`<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="2" fill="${colour}"/>`);
  }
  parts.push(`<rect x="${W - R + 10}" y="${T + i * 18}" width="12" height="3" fill="${colour}"/>`);
  parts.push(`<text x="${W - R + 26}" y="${T + i * 18 + 5}">${esc(s.key)} (${s.points.length})</text>`);
});
parts.push('</svg>');
writeFileSync(out, parts.join('\n') + '\n');
console.log(`${out}: ${series.map((s) => `${s.key} ${s.points.length} points`).join(', ')}`);
