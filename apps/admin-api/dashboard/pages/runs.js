// @ts-check
import { api, ApiError } from '../api.js';
import { empty, fmt, h, table } from '../dom.js';

/** Which buttons a run in each status offers (the API's stop/resume machine decides; 409 otherwise). */
export const CAN_STOP = new Set(['pending', 'running']);
export const CAN_RESUME = new Set(['stopped', 'failed']);

/** @param {import('../app.js').PageContext} ctx */
export async function runsPage({ main, signal }) {
  document.title = 'Runs · FATHOM';
  const listHolder = h('div');
  const status = h('p', { role: 'status', class: 'status-line' });

  const load = async () => {
    /** @type {any[]} */
    const runs = await api('/runs?limit=200', { signal });
    listHolder.replaceChildren(
      runs.length === 0 ? empty('No runs yet. Start one with the form below.') : runsTable(runs),
    );
  };

  /** @param {any[]} runs */
  const runsTable = (runs) =>
    table(
      'Runs, newest first',
      ['Run', 'Status', 'Policy version', 'Step', 'Latest reward (mean)', 'Created', 'Actions'],
      runs.map((run) => [
        h('a', { href: `#/runs/${encodeURIComponent(run.id)}` }, run.name),
        h('span', { class: `badge status-${run.status}`, 'data-run-status': run.id }, run.status),
        fmt(run.policyVersion),
        fmt(run.step),
        run.latestStep ? fmt(run.latestStep.rewardMean) : h('span', { class: 'muted' }, 'no steps yet'),
        new Date(run.createdAt).toLocaleString(),
        h('span', { class: 'actions' }, actionButton(run, 'stop'), actionButton(run, 'resume')),
      ]),
      { numeric: [false, false, true, true, true, false, false] },
    );

  /**
   * @param {any} run
   * @param {'stop' | 'resume'} action
   */
  const actionButton = (run, action) => {
    const allowed = action === 'stop' ? CAN_STOP.has(run.status) : CAN_RESUME.has(run.status);
    return h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        disabled: !allowed,
        'aria-label': `${action === 'stop' ? 'Stop' : 'Resume'} run ${run.name}`,
        onclick: async () => {
          try {
            const next = await api(`/runs/${encodeURIComponent(run.id)}/${action}`, { method: 'POST', signal });
            status.textContent = `Run ${next.name} is now ${next.status}.`;
            await load();
          } catch (error) {
            status.textContent = error instanceof ApiError ? error.message : String(error);
          }
        },
      },
      action === 'stop' ? 'Stop' : 'Resume',
    );
  };

  // The form's hints show the schema's defaults, read from the API's own OpenAPI document (RunConfigSchema).
  const [document_] = await Promise.all([api('/docs/openapi.json', { signal }), load()]);
  main.append(
    h('h1', { tabindex: -1 }, 'Runs'),
    status,
    listHolder,
    startForm(
      document_?.components?.schemas?.RunConfig,
      async (run) => {
        status.textContent = `Run ${run.name} created (${run.status}).`;
        await load();
      },
      signal,
    ),
  );
}

/**
 * The default of a field of the RunConfig JSON schema, e.g. "grpo.groupSize"; undefined when it has none.
 * @param {any} schema
 * @param {string} path
 */
function schemaDefault(schema, path) {
  let node = schema;
  for (const key of path.split('.')) node = node?.properties?.[key];
  return node?.default;
}

/**
 * @param {any} schema
 * @param {string} label
 * @param {string} name
 * @param {string} hint
 * @param {string} [type]
 */
function field(schema, label, name, hint, type = 'number') {
  const id = `run-${name.replace(/\./g, '-')}`;
  const fallback = schemaDefault(schema, name);
  if (fallback !== undefined) hint = `${hint} (default ${JSON.stringify(fallback)})`;
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    h('input', {
      id,
      name,
      type,
      inputmode: type === 'number' ? 'decimal' : undefined,
      'aria-describedby': `${id}-hint`,
    }),
    h('small', { id: `${id}-hint` }, hint),
  );
}

/**
 * The start form. It validates nothing itself: POST /runs parses the body with RunConfigSchema and its message
 * is shown as it is, so the form and the API can never disagree on what a valid config is.
 * @param {any} schema the RunConfig JSON schema, for the defaults shown as hints
 * @param {(run: any) => Promise<void>} onCreated
 * @param {AbortSignal} signal
 */
function startForm(schema, onCreated, signal) {
  const error = h('p', { id: 'start-error', class: 'error', role: 'alert' });
  const form = h(
    'form',
    { class: 'start-form', novalidate: true, 'aria-describedby': 'start-error' },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Start a run'),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'run-name' }, 'Name'),
        h('input', { id: 'run-name', name: 'name', type: 'text', required: true }),
      ),
      field(schema, 'Steps', 'steps', 'GRPO steps'),
      field(schema, 'Batch size', 'batchSize', 'groups per step'),
      field(schema, 'Group size', 'grpo.groupSize', 'completions per prompt'),
      field(schema, 'Seed', 'seed', 'sampling and init seed'),
      field(schema, 'Checkpoint', 'model.checkpoint', 'checkpoint folder', 'text'),
      h(
        'div',
        { class: 'field wide' },
        h('label', { for: 'run-extra' }, 'More settings (JSON, merged into the config)'),
        h('textarea', {
          id: 'run-extra',
          name: 'extra',
          rows: 3,
          spellcheck: false,
          'aria-describedby': 'run-extra-hint',
        }),
        h('small', { id: 'run-extra-hint' }, 'e.g. {"rollout": {"maxTurns": 4}, "reward": {"alpha": 0.1}}'),
      ),
      h('button', { type: 'submit' }, 'Start run'),
      error,
    ),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    let body;
    try {
      body = formConfig(new FormData(form));
    } catch (problem) {
      error.textContent = /** @type {Error} */ (problem).message;
      return;
    }
    try {
      const run = await api('/runs', { method: 'POST', body, signal });
      form.reset();
      await onCreated(run);
    } catch (problem) {
      error.textContent = problem instanceof ApiError ? `${problem.status}: ${problem.message}` : String(problem);
    }
  });
  return form;
}

/**
 * The request body from the form: empty fields are left out (so the schema's defaults apply), numbers are sent
 * as numbers when they parse as such and as text otherwise (the API then says what is wrong).
 * @param {FormData} data
 * @returns {Record<string, unknown>}
 */
function formConfig(data) {
  /** @type {Record<string, any>} */
  let config = {};
  const extra = String(data.get('extra') ?? '').trim();
  if (extra !== '') {
    try {
      config = JSON.parse(extra);
    } catch (error) {
      throw new Error(`More settings is not valid JSON: ${/** @type {Error} */ (error).message}`, { cause: error });
    }
    if (typeof config !== 'object' || config === null || Array.isArray(config)) {
      throw new Error('More settings must be a JSON object');
    }
  }
  for (const [key, raw] of data.entries()) {
    if (key === 'extra') continue;
    const text = String(raw).trim();
    if (text === '') continue;
    const numeric = key !== 'name' && key !== 'model.checkpoint' && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text);
    const path = key.split('.');
    let target = config;
    for (const part of path.slice(0, -1)) {
      if (typeof target[part] !== 'object' || target[part] === null) target[part] = {};
      target = target[part];
    }
    target[path[path.length - 1]] = numeric ? Number(text) : text;
  }
  return config;
}
