/**
 * The one meaning of `llm(question, chunk)` in FATHOM — in rollouts, eval, the env-service and teacher data alike:
 *
 * - a chunk that fits the reader window (or no chunk) is a **leaf**: the policy reads it in one direct completion
 *   of the sub-call prompt (`renderSubcallPrompt`);
 * - a larger chunk is an **episode**: a child RLM episode whose `ctx` is the chunk and whose question is the
 *   call's question, with the same REPL, limits and ending rules as a root episode.
 *
 * The depth cap is the sandbox's: a call from an episode at depth `maxDepth` is refused before it reaches a handler,
 * so a child episode at the last level may search its chunk with code but not call `llm()` again.
 */

/** Characters of a chunk a leaf call reads directly; chunks above it start a child episode. */
export const DEFAULT_READER_WINDOW_CHARS = 1_000;

export type SubcallKind = 'leaf' | 'episode';

/** How an `llm()` call with a chunk of `chunkChars` characters (undefined: no chunk) is answered. */
export function planSubcall(chunkChars: number | undefined, readerWindowChars: number): SubcallKind {
  return chunkChars === undefined || chunkChars <= readerWindowChars ? 'leaf' : 'episode';
}
