// @ts-check
/**
 * Tiny DOM helpers. Every piece of data reaches the page as text (textContent), never as HTML, so a prompt or an
 * observation that contains markup is shown, not run.
 */

/**
 * @typedef {string | number | Node | null | undefined | false} Child
 * @typedef {Record<string, string | number | boolean | null | undefined | EventListener>} Attrs
 */

/**
 * Creates an element. Attributes whose value is a function become event listeners (`onclick` → "click");
 * `false`, null and undefined attributes are left out; `true` sets a boolean attribute.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

/**
 * @param {Element} el
 * @param {(Child | Child[])[]} children
 */
function append(el, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'string' || typeof child === 'number' ? String(child) : child);
  }
}

/**
 * A number as people read it: up to 6 significant digits, no exponent for ordinary magnitudes.
 * @param {number | null | undefined} value
 */
export function fmt(value) {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  if (Number.isInteger(value)) return value.toLocaleString('en-US', { useGrouping: false });
  return String(Number(value.toPrecision(6)));
}

/**
 * A table inside a scrollable region that keyboard users can scroll (tabindex) and screen readers can name.
 * @param {string} caption
 * @param {string[]} headers
 * @param {Child[][]} rows
 * @param {{ numeric?: boolean[], className?: string }} [options]
 */
export function table(caption, headers, rows, options = {}) {
  const numeric = options.numeric ?? [];
  return h(
    'div',
    { class: 'table-scroll', role: 'region', 'aria-label': caption, tabindex: 0 },
    h(
      'table',
      { class: options.className },
      h('caption', {}, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headers.map((text, i) => h('th', { scope: 'col', class: numeric[i] ? 'num' : undefined }, text)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((cells) =>
          h(
            'tr',
            {},
            cells.map((cell, i) => h('td', { class: numeric[i] ? 'num' : undefined }, cell)),
          ),
        ),
      ),
    ),
  );
}

/**
 * A "nothing here yet" message: the dashboard never fills a gap with invented numbers.
 * @param {string} text
 */
export function empty(text) {
  return h('p', { class: 'empty' }, text);
}

/**
 * A definition list from label/value pairs.
 * @param {[string, Child][]} pairs
 */
export function facts(pairs) {
  return h(
    'dl',
    { class: 'facts' },
    pairs.flatMap(([label, value]) => [h('dt', {}, label), h('dd', {}, value)]),
  );
}

/**
 * Query-string parameters of the current hash route (`#/path?x=1`).
 * @param {string} hash
 */
export function hashQuery(hash) {
  const at = hash.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : hash.slice(at + 1));
}
