import { SandboxPool } from '@fathom/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyTurn } from './turn';

let pool: SandboxPool;
beforeAll(async () => {
  pool = await SandboxPool.start({ workers: 1, warmIsolatesPerWorker: 1 });
});
afterAll(() => pool.close());

describe('applyTurn on a real sandbox episode', () => {
  it('carries state from one turn to the next and ends on the answer', async () => {
    const episode = await pool.openEpisode({ ctx: 'filler. The mirror is teal. filler.' });
    const first = await applyTurn(
      episode,
      'Let me look.\n```js\nconst m = ctx.match(/mirror is (\\w+)/)\nprint(m[1])\n```',
    );
    expect(first).toMatchObject({ kind: 'code', result: { stdout: 'teal\n', error: null, variables: ['m'] } });
    const second = await applyTurn(episode, '```repl\nconst m = 2; print(m)\n```');
    expect(second).toMatchObject({ kind: 'code', result: { stdout: '2\n', error: null } });
    expect(await applyTurn(episode, 'So: <answer>teal</answer>')).toEqual({ kind: 'answer', answer: 'teal' });
    await episode.close();
  });
});
