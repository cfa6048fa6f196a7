// @ts-check
import { ApiError, getToken, setToken } from './api.js';
import { h } from './dom.js';
import { episodePage } from './pages/episode.js';
import { episodesPage } from './pages/episodes.js';
import { evalsPage } from './pages/evals.js';
import { runPage } from './pages/run.js';
import { runsPage } from './pages/runs.js';

/**
 * @typedef {{
 *   main: HTMLElement,
 *   params: string[],
 *   query: URLSearchParams,
 *   signal: AbortSignal,
 *   onCleanup: (fn: () => void) => void,
 * }} PageContext
 * @typedef {(ctx: PageContext) => Promise<void>} Page
 */

/**
 * Hash routes (the files are static; `#/…` needs no server-side routing). First match wins. The pages are
 * imported up front: index.html preloads every module in parallel, so no page waits on an import hop.
 * @type {[string, RegExp, Page][]}
 */
const ROUTES = [
  ['episodes', /^#\/runs\/([^/?]+)\/episodes(?:\?.*)?$/, episodesPage],
  ['run', /^#\/runs\/([^/?]+)(?:\?.*)?$/, runPage],
  ['episode', /^#\/episodes\/([^/?]+)(?:\?.*)?$/, episodePage],
  ['evals', /^#\/evals(?:\?.*)?$/, evalsPage],
  ['runs', /^(?:#\/runs)?(?:\?.*)?$|^#\/?$/, runsPage],
];

const main = /** @type {HTMLElement} */ (document.getElementById('main'));
/** @type {AbortController | undefined} */
let active;
let firstRender = true;

async function route() {
  const hash = location.hash;
  // fathom:route → fathom:ready is how long a page takes to show its data (bench/dashboard reads both marks).
  performance.mark('fathom:route');
  active?.abort();
  const controller = new AbortController();
  active = controller;
  /** @type {(() => void)[]} */
  const cleanups = [];
  controller.signal.addEventListener('abort', () => cleanups.forEach((fn) => fn()));

  const match = ROUTES.map(([name, pattern, page]) => ({ name, page, m: pattern.exec(hash) })).find((r) => r.m);
  main.replaceChildren();
  main.setAttribute('aria-busy', 'true');
  delete main.dataset.ready;
  markCurrentNav(match?.name);
  if (!match || !match.m) {
    main.append(h('h1', {}, 'Not found'), h('p', {}, `No page at ${hash}.`), h('a', { href: '#/runs' }, 'Go to runs'));
    done('not-found');
    return;
  }
  const at = hash.indexOf('?');
  try {
    await match.page({
      main,
      params: match.m.slice(1).map((p) => decodeURIComponent(p)),
      query: new URLSearchParams(at < 0 ? '' : hash.slice(at + 1)),
      signal: controller.signal,
      onCleanup: (fn) => cleanups.push(fn),
    });
  } catch (error) {
    if (controller.signal.aborted) return;
    main.replaceChildren();
    showError(error);
  }
  if (!controller.signal.aborted) done(match.name);
}

/** @param {string} name */
function done(name) {
  main.setAttribute('aria-busy', 'false');
  main.dataset.ready = name;
  performance.mark('fathom:ready');
  // After a navigation, move focus to the new page's heading so screen readers announce it.
  if (!firstRender) main.querySelector('h1')?.focus();
  firstRender = false;
}

/** @param {unknown} error */
function showError(error) {
  if (error instanceof ApiError && error.status === 401) {
    main.append(h('h1', { tabindex: -1 }, 'Sign in'), tokenForm(error.message));
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  main.append(h('h1', { tabindex: -1 }, 'Something went wrong'), h('p', { role: 'alert', class: 'error' }, message));
}

/**
 * The one place the user types the admin token; it is kept for this tab only.
 * @param {string} [reason]
 */
function tokenForm(reason) {
  const input = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  return h(
    'form',
    {
      class: 'token-form',
      onsubmit: (event) => {
        event.preventDefault();
        setToken(input.value.trim());
        void route();
      },
    },
    h('p', {}, 'This admin API needs its bearer token (ADMIN_TOKEN). It is kept in this browser tab only.'),
    reason && getToken() ? h('p', { role: 'alert', class: 'error' }, reason) : null,
    h('label', { for: 'token' }, 'Admin token'),
    input,
    h('button', { type: 'submit' }, 'Sign in'),
  );
}

/** @param {string | undefined} name */
function markCurrentNav(name) {
  const section = name === 'evals' ? 'evals' : 'runs';
  for (const link of document.querySelectorAll('nav a[data-section]')) {
    if (/** @type {HTMLElement} */ (link).dataset.section === section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

// The skip link moves focus without touching the hash (the hash is the route).
document.querySelector('.skip-link')?.addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});
document.getElementById('sign-out')?.addEventListener('click', () => {
  setToken(null);
  void route();
});
window.addEventListener('hashchange', () => void route());
void route();
