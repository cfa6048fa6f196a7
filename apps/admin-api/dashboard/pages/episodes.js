// @ts-check
import { api } from '../api.js';
import { empty, fmt, h, table } from '../dom.js';
import { componentNames } from '../rewards.js';

const TASK_TYPES = ['niah', 'extractive', 'multi_needle', 'counting'];
/** The filters GET /runs/:id/episodes accepts, as [query name, label, input type]. */
const FILTERS = /** @type {const} */ ([
  ['step', 'Step', 'number'],
  ['minReward', 'Reward at least', 'number'],
  ['maxReward', 'Reward at most', 'number'],
  ['minContextTokens', 'Context tokens at least', 'number'],
  ['maxContextTokens', 'Context tokens at most', 'number'],
]);
const PAGE_SIZE = 50;

/** @param {import('../app.js').PageContext} ctx */
export async function episodesPage({ main, params, query, signal }) {
  const [runId] = params;
  const base = `#/runs/${encodeURIComponent(runId)}/episodes`;
  document.title = `Episodes of ${runId} · FATHOM`;

  /** @type {URLSearchParams} */
  const filters = new URLSearchParams();
  for (const [name] of [...FILTERS, ['taskType']]) {
    const value = query.get(name);
    if (value) filters.set(name, value);
  }

  const form = h(
    'form',
    {
      class: 'filters',
      role: 'search',
      'aria-label': 'Episode filters',
      onsubmit: (event) => {
        event.preventDefault();
        const next = new URLSearchParams();
        for (const [name, value] of new FormData(form).entries())
          if (String(value).trim() !== '') next.set(name, String(value).trim());
        location.hash = next.size > 0 ? `${base}?${next}` : base;
      },
    },
    FILTERS.map(([name, label]) =>
      h(
        'div',
        { class: 'field' },
        h('label', { for: `f-${name}` }, label),
        h('input', {
          id: `f-${name}`,
          name,
          type: 'text',
          inputmode: 'decimal',
          value: filters.get(name) ?? undefined,
        }),
      ),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'f-taskType' }, 'Task type'),
      h(
        'select',
        { id: 'f-taskType', name: 'taskType' },
        h('option', { value: '' }, 'any'),
        TASK_TYPES.map((t) => h('option', { value: t, selected: filters.get('taskType') === t }, t)),
      ),
    ),
    h(
      'div',
      { class: 'field buttons' },
      h('button', { type: 'submit' }, 'Filter'),
      h('a', { href: base, class: 'button-link secondary' }, 'Clear'),
    ),
  );

  const results = h('div');
  const more = h('p');
  /** @type {any[]} */
  const episodes = [];

  /** @param {string | null} cursor */
  const load = async (cursor) => {
    const q = new URLSearchParams(filters);
    q.set('limit', String(PAGE_SIZE));
    if (cursor) q.set('cursor', cursor);
    const page = await api(`/runs/${encodeURIComponent(runId)}/episodes?${q}`, { signal });
    episodes.push(...page.items);
    results.replaceChildren(
      episodes.length === 0
        ? empty(filters.size > 0 ? 'No episodes match these filters.' : 'No episodes recorded for this run yet.')
        : episodesTable(episodes),
    );
    more.replaceChildren(
      page.nextCursor
        ? h(
            'button',
            { type: 'button', class: 'secondary', onclick: () => void load(page.nextCursor) },
            `Show ${PAGE_SIZE} more`,
          )
        : episodes.length > 0
          ? h(
              'span',
              { class: 'muted' },
              episodes.length === 1
                ? 'The one matching episode is shown.'
                : `All ${episodes.length} matching episodes shown.`,
            )
          : '',
    );
  };

  main.append(
    h(
      'p',
      { class: 'crumbs' },
      h('a', { href: '#/runs' }, 'Runs'),
      ' / ',
      h('a', { href: `#/runs/${encodeURIComponent(runId)}` }, runId),
      ' / episodes',
    ),
    h('h1', { tabindex: -1 }, 'Episode explorer'),
    form,
    results,
    more,
  );
  await load(null);
}

/** @param {any[]} episodes */
function episodesTable(episodes) {
  const components = componentNames(episodes);
  return table(
    'Episodes, newest first',
    [
      'Episode',
      'Step',
      'Group / sample',
      'Task type',
      'Context tokens',
      'Reward',
      ...components,
      'llm() calls',
      'Tokens',
      'Status',
    ],
    episodes.map((e) => [
      h('a', { href: `#/episodes/${e.id}` }, `#${e.id}`),
      fmt(e.step),
      `${e.groupId} / ${e.sampleIndex}`,
      e.taskType,
      fmt(e.contextTokens),
      fmt(e.reward),
      ...components.map((name) => fmt(e.rewardComponents[name])),
      fmt(e.llmCalls),
      fmt(e.tokens),
      e.status,
    ]),
    { numeric: [false, true, false, false, true, true, ...components.map(() => true), true, true, false] },
  );
}
