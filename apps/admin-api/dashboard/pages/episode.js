// @ts-check
import { api } from '../api.js';
import { empty, facts, fmt, h, table } from '../dom.js';
import { componentNames } from '../rewards.js';

/** @param {import('../app.js').PageContext} ctx */
export async function episodePage({ main, params, signal }) {
  const [id] = params;
  const e = await api(`/episodes/${encodeURIComponent(id)}`, { signal });
  document.title = `Episode ${e.id} · FATHOM`;
  const runLink = `#/runs/${encodeURIComponent(e.runId)}`;

  main.append(
    h(
      'p',
      { class: 'crumbs' },
      h('a', { href: '#/runs' }, 'Runs'),
      ' / ',
      h('a', { href: runLink }, e.runId),
      ' / ',
      h('a', { href: `${runLink}/episodes?step=${e.step}` }, `step ${e.step}`),
      ` / episode ${e.id}`,
    ),
    h('h1', { tabindex: -1 }, `Episode ${e.id}`),
    facts([
      ['Task', `${e.taskId} (${e.taskType})`],
      ['Context length', `${fmt(e.contextTokens)} tokens`],
      ['Step', fmt(e.step)],
      ['Group / sample', `${e.groupId} / ${e.sampleIndex}`],
      ['Policy version', fmt(e.policyVersion)],
      ['Status', e.status],
      ['Turns', fmt(e.turns)],
      ['Tokens', fmt(e.tokens)],
      ['llm() calls', fmt(e.llmCalls)],
    ]),
    section('answer', 'Answer', answerBlock(e)),
    section(
      'reward',
      'Reward',
      table(
        'Reward and its components',
        ['Component', 'Value'],
        [['total', fmt(e.reward)], ...componentNames([e]).map((name) => [name, fmt(e.rewardComponents[name])])],
        { numeric: [false, true], className: 'reward-table' },
      ),
    ),
    section('transcript', 'Transcript', transcriptBlock(e.transcript)),
    section('tree', 'Recursion tree of llm() calls', treeBlock(e.recursionTree)),
  );
}

/**
 * @param {string} id
 * @param {string} title
 * @param {...Node} content
 */
function section(id, title, ...content) {
  return h(
    'section',
    { 'aria-labelledby': `${id}-title`, id: `episode-${id}` },
    h('h2', { id: `${id}-title` }, title),
    ...content,
  );
}

/** @param {any} e */
function answerBlock(e) {
  return h(
    'div',
    { class: 'answer-compare' },
    h(
      'div',
      {},
      h('h3', {}, 'Model answer'),
      e.answer === null
        ? empty('The episode ended without an answer.')
        : h('pre', { 'data-answer': 'model' }, e.answer),
    ),
    h('div', {}, h('h3', {}, 'Gold answer'), h('pre', { 'data-answer': 'gold' }, e.goldAnswer)),
  );
}

/**
 * The prompt and each turn. The model's own text (the tokens the mask marks 1, the ones GRPO trains on) is
 * marked apart from the prompt and the observations (mask 0), by a label as well as a colour.
 * @param {any} transcript
 */
function transcriptBlock(transcript) {
  const prompt = typeof transcript?.prompt === 'string' ? transcript.prompt : null;
  const turns = Array.isArray(transcript?.turns) ? transcript.turns : [];
  if (prompt === null && turns.length === 0) return empty('This episode has no transcript stored.');
  const legend = h(
    'p',
    { class: 'legend' },
    h('span', { class: 'seg trained' }, 'trained on'),
    ' the model’s tokens (mask 1); ',
    h('span', { class: 'seg context' }, 'not trained on'),
    ' prompt and observations (mask 0).',
  );
  const tokens = transcript?.tokens;
  const counts =
    tokens && typeof tokens.trained === 'number' && typeof tokens.notTrained === 'number'
      ? h(
          'p',
          { 'data-token-counts': '' },
          `${fmt(tokens.trained)} tokens trained on, ${fmt(tokens.notTrained)} not` +
            (typeof tokens.subcall === 'number' ? `; ${fmt(tokens.subcall)} in llm() calls` : '') +
            (transcript.stopReason ? `; stopped by ${transcript.stopReason}` : '') +
            '.',
        )
      : null;
  return h(
    'div',
    { class: 'transcript' },
    legend,
    counts,
    prompt === null ? null : segment('Prompt', prompt, false),
    h(
      'ol',
      { class: 'turns' },
      turns.map((/** @type {any} */ turn, /** @type {number} */ i) =>
        h(
          'li',
          { 'data-turn': i + 1 },
          h(
            'h3',
            {},
            `Turn ${i + 1}${turn.action ? ` · ${turn.action}` : ''}${turn.sandboxError ? ` · sandbox error: ${turn.sandboxError}` : ''}`,
          ),
          segment('Model', String(turn.completion ?? ''), true),
          turn.observation === null || turn.observation === undefined
            ? null
            : segment('Observation', String(turn.observation), false),
        ),
      ),
    ),
  );
}

/**
 * @param {string} label
 * @param {string} text
 * @param {boolean} trained
 */
function segment(label, text, trained) {
  return h(
    'div',
    { class: `seg-block ${trained ? 'trained' : 'context'}` },
    h('div', { class: 'seg-label' }, `${label} · ${trained ? 'trained on' : 'not trained on'}`),
    h('pre', {}, text),
  );
}

/**
 * The recursion tree as nested lists, one node per llm() call. The stored tree is either the episode's root
 * node (depth 0, its calls as children) or a list of its top-level calls.
 * @param {any} tree
 */
function treeBlock(tree) {
  const roots = Array.isArray(tree) ? tree : tree && typeof tree === 'object' ? [tree] : [];
  const calls = roots.flatMap((n) => (n.kind === 'root' || n.depth === 0 ? (n.children ?? []) : [n]));
  if (calls.length === 0) return empty('This episode made no llm() calls.');
  return h('ul', { class: 'tree', 'aria-label': 'llm() calls' }, roots.map(treeNode));
}

/** @param {any} node */
function treeNode(node) {
  const children = Array.isArray(node.children) ? node.children : [];
  const title = node.kind === 'root' ? 'episode (root)' : `llm() call · depth ${node.depth}`;
  return h(
    'li',
    { class: 'tree-node', 'data-depth': node.depth },
    h(
      'details',
      { open: true },
      h(
        'summary',
        {},
        h('span', { class: 'node-title' }, title),
        ' ',
        h('span', { class: 'node-prompt' }, String(node.prompt ?? '')),
      ),
      facts([
        ['Depth', fmt(node.depth)],
        ['Kind', node.kind ?? '—'],
        ['Chunk size', `${fmt(node.chunkChars)} chars`],
        ['Answer', node.answer ?? (node.error ? `error: ${node.error}` : '—')],
        ['Tokens', `${fmt(node.promptTokens)} prompt + ${fmt(node.completionTokens)} completion`],
        ['Latency', `${fmt(node.latencyMs)} ms`],
        ['Turns', fmt(node.turns)],
      ]),
      children.length > 0 ? h('ul', {}, children.map(treeNode)) : null,
    ),
  );
}
