// @ts-check
import { api } from '../api.js';
import { empty, fmt, h, table } from '../dom.js';

/** Columns compared side by side, one table each. */
const MEASURES = /** @type {const} */ ([
  ['accuracy', 'Accuracy'],
  ['meanTokens', 'Mean tokens'],
  ['meanLlmCalls', 'Mean llm() calls'],
]);

/** @param {import('../app.js').PageContext} ctx */
export async function evalsPage({ main, query, signal }) {
  document.title = 'Evals · FATHOM';
  /** @type {any[]} */
  const evals = await api('/evals', { signal });
  main.append(h('h1', { tabindex: -1 }, 'Evals'));
  if (evals.length === 0) {
    main.append(empty('No eval results yet. Queue one with POST /evals; results appear here when it has run.'));
    return;
  }
  const wanted = query.get('ids')?.split(',').filter(Boolean);
  const selected = wanted && wanted.length > 0 ? evals.filter((e) => wanted.includes(e.evalId)) : evals;

  const picker = h(
    'form',
    {
      class: 'eval-picker',
      onsubmit: (event) => {
        event.preventDefault();
        const ids = new FormData(picker).getAll('id').map(String);
        location.hash = `#/evals?ids=${ids.map(encodeURIComponent).join(',')}`;
      },
    },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Checkpoints to compare'),
      evals.map((e) =>
        h(
          'div',
          { class: 'check' },
          h('input', {
            type: 'checkbox',
            id: `eval-${e.evalId}`,
            name: 'id',
            value: e.evalId,
            checked: selected.includes(e),
          }),
          h(
            'label',
            { for: `eval-${e.evalId}` },
            `${e.checkpoint} · ${e.split} · ${new Date(e.createdAt).toLocaleString()}`,
          ),
        ),
      ),
      h('button', { type: 'submit' }, 'Compare'),
    ),
  );
  main.append(picker);

  const details = await Promise.all(selected.map((e) => api(`/evals/${encodeURIComponent(e.evalId)}`, { signal })));
  if (details.length === 0) {
    main.append(empty('No checkpoint selected.'));
    return;
  }
  /** Rows are (task type, length bucket) pairs seen in any selected eval, the "all" rows first. */
  const keys = [
    ...new Set(details.flatMap((d) => d.results.map((/** @type {any} */ r) => `${r.taskType}\u0000${r.lengthBucket}`))),
  ]
    .map((k) => k.split('\u0000'))
    .sort(
      (a, b) =>
        rank(a[0]) - rank(b[0]) ||
        a[0].localeCompare(b[0]) ||
        rank(a[1]) - rank(b[1]) ||
        a[1].localeCompare(b[1], 'en', { numeric: true }),
    );
  const headers = ['Task type', 'Length bucket', ...details.map((d) => `${d.checkpoint} (${d.split})`)];
  for (const [field, label] of MEASURES) {
    main.append(
      h(
        'section',
        { 'aria-labelledby': `m-${field}` },
        h('h2', { id: `m-${field}` }, label),
        table(
          `${label} by task type and context-length bucket`,
          headers,
          keys.map(([taskType, bucket]) => [
            taskType,
            bucket,
            ...details.map((d) => {
              const row = d.results.find(
                (/** @type {any} */ r) => r.taskType === taskType && r.lengthBucket === bucket,
              );
              return row
                ? cell(row[field], field === 'accuracy', row.n)
                : h('span', { class: 'muted' }, 'not evaluated');
            }),
          ]),
          { numeric: [false, false, ...details.map(() => true)], className: `eval-table eval-${field}` },
        ),
      ),
    );
  }
}

/** @param {string} key */
const rank = (key) => (key === 'all' ? 0 : 1);

/**
 * @param {number} value
 * @param {boolean} asShare
 * @param {number} n
 */
function cell(value, asShare, n) {
  const text = fmt(value);
  if (!asShare) return text;
  return h(
    'span',
    { class: 'share', title: `${n} tasks` },
    h('span', {
      class: 'bar',
      style: `width:${Math.round(Math.max(0, Math.min(1, value)) * 100)}%`,
      'aria-hidden': 'true',
    }),
    h('span', { class: 'share-text' }, `${text} (n=${n})`),
  );
}
