// @ts-check
import { api, ApiError } from '../api.js';
import { lineChart } from '../charts.js';
import { empty, facts, fmt, h, table } from '../dom.js';
import { CAN_RESUME, CAN_STOP } from './runs.js';

/** How often the page asks for new steps, the run's status and the queue depths. */
const POLL_MS = 5000;

/**
 * @typedef {{
 *   steps: number[],
 *   series: Record<string, (number | null)[]>,
 *   components: Record<string, (number | null)[]>,
 * }} Columns GET /runs/:id/series: one value per step in every column, null where a step recorded none
 */

/**
 * The charts of the run page, each from columns of GET /runs/:id/series (the API decides where a series comes
 * from: a Step column or Step.metrics). A series nobody recorded stays empty and its chart says so.
 * @type {{ id: string, title: string, unit?: string, series: (c: Columns) => import('../charts.js').Series[] }[]}
 */
const CHARTS = [
  {
    id: 'reward',
    title: 'Reward: mean and each component',
    series: (c) => [
      { label: 'reward (mean)', values: c.series.reward_mean },
      ...Object.keys(c.components)
        .sort()
        .map((name) => ({ label: name, values: c.components[name] })),
    ],
  },
  single(
    'frac-zero-std',
    'Groups with zero reward std (frac_reward_zero_std)',
    'frac_reward_zero_std',
    'frac_reward_zero_std',
  ),
  single('kl', 'KL to the reference policy', 'kl', 'kl'),
  single('loss', 'Loss', 'loss', 'loss'),
  single('clip-ratio', 'Clip ratio', 'clip_ratio', 'clip ratio'),
  single('completion-length', 'Completion length', 'completion_length', 'mean length', 'tokens'),
  single('llm-calls', 'llm() calls per episode', 'llm_calls', 'llm() calls'),
  single('tokens-per-s', 'Sampling throughput', 'tokens_per_s', 'tokens/s', 'tokens/s'),
];

/**
 * @param {string} id
 * @param {string} title
 * @param {string} column
 * @param {string} label
 * @param {string} [unit]
 */
function single(id, title, column, label, unit) {
  return { id, title, unit, series: (/** @type {Columns} */ c) => [{ label, values: c.series[column] ?? [] }] };
}

/**
 * Appends the columns of newer steps (a component first seen now gets nulls for the steps before).
 * @param {Columns} into
 * @param {Columns} more
 */
function appendColumns(into, more) {
  const before = into.steps.length;
  into.steps.push(...more.steps);
  for (const [name, values] of Object.entries(more.series))
    (into.series[name] ??= new Array(before).fill(null)).push(...values);
  for (const name of new Set([...Object.keys(into.components), ...Object.keys(more.components)])) {
    const column = (into.components[name] ??= new Array(before).fill(null));
    column.push(...(more.components[name] ?? new Array(more.steps.length).fill(null)));
  }
}

/** @param {import('../app.js').PageContext} ctx */
export async function runPage({ main, params, signal, onCleanup }) {
  const [id] = params;
  const path = `/runs/${encodeURIComponent(id)}`;
  // The queue depths are fetched alongside, not after: Redis may be slower to answer than Postgres.
  const firstQueues = api('/queues', { signal });
  firstQueues.catch(() => undefined);
  /** @type {[any, Columns]} */
  const [run, columns] = await Promise.all([api(path, { signal }), api(`${path}/series`, { signal })]);
  document.title = `${run.name} · FATHOM`;

  const summary = h('div');
  const statusLine = h('p', { role: 'status', class: 'status-line' });
  const chartsHolder = h('div', { class: 'charts' });
  const queuesHolder = h('div');
  /** Charts on the page by id, with how many series each was built with (a new component needs a new chart). */
  /** @type {Map<string, { chart: ReturnType<typeof lineChart>, seriesCount: number }>} */
  const charts = new Map();
  onCleanup(() => charts.forEach((c) => c.chart.destroy()));

  let shown = '';
  const renderSummary = (/** @type {any} */ current) => {
    // Polling must not rebuild an unchanged summary: that would steal the keyboard focus from its buttons.
    const key = JSON.stringify([current.status, current.step, current.policyVersion, current.error]);
    if (key === shown) return;
    shown = key;
    summary.replaceChildren(
      facts([
        [
          'Status',
          h('span', { class: `badge status-${current.status}`, 'data-run-status': current.id }, current.status),
        ],
        ['Step', fmt(current.step)],
        ['Policy version', fmt(current.policyVersion)],
        ['Run id', h('code', {}, current.id)],
        ['Created', new Date(current.createdAt).toLocaleString()],
        ['Error', current.error ?? '—'],
      ]),
      h(
        'p',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', class: 'secondary', disabled: !CAN_STOP.has(current.status), onclick: () => act('stop') },
          'Stop',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            disabled: !CAN_RESUME.has(current.status),
            onclick: () => act('resume'),
          },
          'Resume',
        ),
        h('a', { href: `#/runs/${encodeURIComponent(id)}/episodes`, class: 'button-link' }, 'Explore episodes'),
      ),
      h('details', {}, h('summary', {}, 'Config'), h('pre', {}, JSON.stringify(current.config, null, 2))),
    );
  };

  /** @param {'stop' | 'resume'} action */
  const act = async (action) => {
    try {
      const next = await api(`${path}/${action}`, { method: 'POST', signal });
      statusLine.textContent = `Run is now ${next.status}.`;
      renderSummary({ ...run, ...next });
    } catch (error) {
      statusLine.textContent = error instanceof ApiError ? error.message : String(error);
    }
  };

  const renderCharts = () => {
    if (columns.steps.length === 0) {
      chartsHolder.replaceChildren(empty('No steps recorded for this run yet; charts appear after its first step.'));
      charts.forEach((c) => c.chart.destroy());
      charts.clear();
      return;
    }
    if (charts.size === 0) chartsHolder.replaceChildren();
    const xs = columns.steps;
    for (const def of CHARTS) {
      const series = def.series(columns);
      const recorded = series.some((s) => s.values.some((v) => v !== null));
      const spec = { id: def.id, title: def.title, unit: def.unit, steps: xs, series };
      const existing = charts.get(def.id);
      if (existing && series.length === existing.seriesCount) existing.chart.update(spec);
      else if (recorded) {
        existing?.chart.destroy();
        const chart = lineChart(spec);
        const slot = chartsHolder.querySelector(`[data-slot="${def.id}"]`);
        if (slot) slot.replaceWith(chart.element);
        else chartsHolder.append(chart.element);
        chart.element.dataset.slot = def.id;
        chart.mount();
        charts.set(def.id, { chart, seriesCount: series.length });
      } else if (!chartsHolder.querySelector(`[data-slot="${def.id}"]`)) {
        chartsHolder.append(
          h(
            'figure',
            { class: 'chart', 'data-slot': def.id },
            h('figcaption', {}, def.title),
            empty(`No ${def.title.toLowerCase()} recorded in this run's steps.`),
          ),
        );
      }
    }
  };

  /** @param {Promise<any>} reply GET /queues */
  const renderQueues = async (reply) => {
    try {
      const { queues } = await reply;
      queuesHolder.replaceChildren(
        table(
          'Queue depths',
          ['Queue', 'Waiting', 'Active', 'Delayed', 'Failed', 'Dead-lettered'],
          queues.map((/** @type {any} */ q) => [
            q.queue,
            fmt(q.waiting),
            fmt(q.active),
            fmt(q.delayed),
            fmt(q.failed),
            fmt(q.deadLettered),
          ]),
          { numeric: [false, true, true, true, true, true] },
        ),
        h('p', { class: 'muted' }, 'Worker counts are not reported by the queue transport, so they are not shown.'),
      );
    } catch (error) {
      if (signal.aborted) return;
      queuesHolder.replaceChildren(
        h('p', { class: 'error' }, `Queue depths unavailable: ${/** @type {Error} */ (error).message}`),
      );
    }
  };

  main.append(
    h('p', { class: 'crumbs' }, h('a', { href: '#/runs' }, 'Runs'), ' / ', run.name),
    h('h1', { tabindex: -1 }, `Run ${run.name}`),
    statusLine,
    summary,
    h(
      'section',
      { 'aria-labelledby': 'charts-title' },
      h('h2', { id: 'charts-title' }, 'Training curves'),
      chartsHolder,
    ),
    h('section', { 'aria-labelledby': 'queues-title' }, h('h2', { id: 'queues-title' }, 'Queues'), queuesHolder),
  );
  renderSummary(run);
  renderCharts();
  await renderQueues(firstQueues);

  const timer = setInterval(async () => {
    if (document.hidden) return;
    try {
      const from = columns.steps.length === 0 ? 0 : columns.steps[columns.steps.length - 1] + 1;
      /** @type {[any, Columns]} */
      const [current, more] = await Promise.all([
        api(path, { signal }),
        api(`${path}/series?fromStep=${from}`, { signal }),
      ]);
      renderSummary(current);
      if (more.steps.length > 0) {
        appendColumns(columns, more);
        renderCharts();
      }
      await renderQueues(api('/queues', { signal }));
    } catch (error) {
      if (!signal.aborted) statusLine.textContent = `Refresh failed: ${/** @type {Error} */ (error).message}`;
    }
  }, POLL_MS);
  onCleanup(() => clearInterval(timer));
}
