// @ts-check
import uPlot from 'uplot';
import { fmt, h, table } from './dom.js';

/** Line colours with at least 3:1 contrast against the white plot background. */
const PALETTE = ['#1f5fbf', '#b3261e', '#1b7f3b', '#8a4b00', '#6a3fb5', '#00707a', '#a01a6b', '#4d4d4d'];

const STEP_INCREMENTS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000];

/**
 * @typedef {{ label: string, values: (number | null)[] }} Series
 * @typedef {{ id: string, title: string, unit?: string, steps: number[], series: Series[] }} ChartSpec
 */

/**
 * A line chart with step on the x axis. The legend under the plot shows each series' value at the hovered step
 * (keyboard and screen-reader users get the same numbers from the data table below it). `mount` draws it once
 * it is in the document (uPlot sizes its canvas then); `update` replaces the data, e.g. when polling brings new
 * steps.
 * @param {ChartSpec} spec
 */
export function lineChart(spec) {
  const headingId = `chart-${spec.id}-title`;
  const plot = h('div', { class: 'plot' });
  const tableHolder = h('div');
  const details = h('details', { class: 'chart-data' }, h('summary', {}, `Data table: ${spec.title}`), tableHolder);
  const figure = h(
    'figure',
    { class: 'chart', 'data-chart': spec.id },
    h('figcaption', { id: headingId }, spec.unit ? `${spec.title} (${spec.unit})` : spec.title),
    plot,
    details,
  );

  /** @type {ChartSpec} */
  let current = spec;
  /** @type {uPlot.Options} */
  const options = {
    width: 400,
    height: 220,
    scales: { x: { time: false } },
    axes: [
      // Steps are integers: ticks at 1, 2, 5, 10, … apart, never at fractions.
      { label: 'step', stroke: '#1a1a1a', grid: { stroke: '#e3e3e3' }, incrs: STEP_INCREMENTS },
      { stroke: '#1a1a1a', grid: { stroke: '#e3e3e3' }, size: 60 },
    ],
    cursor: { drag: { x: false, y: false } },
    series: [
      { label: 'step', value: (_u, v) => (v === null || v === undefined ? '—' : String(v)) },
      ...spec.series.map((s, i) => ({
        label: s.label,
        stroke: PALETTE[i % PALETTE.length],
        width: 2,
        points: { show: spec.steps.length <= 60 },
        /** @type {(u: uPlot, v: number | null) => string} */
        value: (_u, v) => fmt(v),
      })),
    ],
  };
  /** @type {uPlot | undefined} */
  let chart;
  const observer = new ResizeObserver(() => {
    const width = Math.max(260, Math.floor(plot.clientWidth));
    if (chart && width !== chart.width) chart.setSize({ width, height: 220 });
  });
  details.addEventListener('toggle', () => {
    if (details.open) tableHolder.replaceChildren(dataTable(current));
  });

  return {
    element: figure,
    /** Draws the chart at the width it has; call once `element` is in the document. */
    mount() {
      options.width = Math.max(260, Math.floor(plot.clientWidth));
      chart = new uPlot(options, toData(current), plot);
      observer.observe(plot);
    },
    /** @param {ChartSpec} next */
    update(next) {
      current = next;
      chart?.setData(toData(next));
      if (details.open) tableHolder.replaceChildren(dataTable(next));
    },
    destroy() {
      observer.disconnect();
      chart?.destroy();
    },
  };
}

/**
 * @param {ChartSpec} spec
 * @returns {uPlot.AlignedData}
 */
function toData(spec) {
  return [spec.steps, ...spec.series.map((s) => s.values)];
}

/** @param {ChartSpec} spec */
function dataTable(spec) {
  return table(
    spec.title,
    ['step', ...spec.series.map((s) => s.label)],
    spec.steps.map((step, i) => [String(step), ...spec.series.map((s) => fmt(s.values[i]))]),
    { numeric: [true, ...spec.series.map(() => true)] },
  );
}
