import { ByteTokenizer } from '@fathom/model';
import { SandboxPool } from '@fathom/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EpisodeRunner, type EpisodeTask, type TurnEvent } from './episode.runner';
import { ScriptedTestPolicy, scriptText, type ScriptCall } from './scripted-policy.test-double';

const { turnsSoFar } = scriptText;

const tokenizer = new ByteTokenizer();
const TASK: EpisodeTask = {
  id: 'on-turn-test',
  question: 'What color is the mirror?',
  context: 'Filler text. The mirror is teal. More filler text about lamps and chairs.',
  contextTokens: 19,
};

/** Root: ask llm() over the whole document (a child episode, the window being tiny), then answer. Child: answer. */
const script = ({ prompt }: ScriptCall) => {
  if (prompt.includes('Question: Which color?')) return '<answer>teal</answer>';
  return turnsSoFar(prompt) === 0 ? '```js\nprint(llm("Which color?", ctx))\n```' : '<answer>teal</answer>';
};

let pool: SandboxPool;
beforeAll(async () => {
  pool = await SandboxPool.start({ workers: 1 });
});
afterAll(() => pool.close());

describe('EpisodeRunner onTurn', () => {
  it('reports each finished root turn in order, with its observation, and no child-episode turn', async () => {
    const seen: TurnEvent[] = [];
    const runner = new EpisodeRunner(
      {
        sandbox: pool,
        policy: new ScriptedTestPolicy(tokenizer, script),
        onTurn: (event) => seen.push(structuredClone(event)),
      },
      { subcalls: { readerWindowChars: 10 } },
    );
    const group = await runner.runGroup(TASK, { G: 2, seed: 3 });

    expect(group.trajectories.map((t) => [t.status, t.answer, t.turns.length])).toEqual([
      ['ok', 'teal', 2],
      ['ok', 'teal', 2],
    ]);
    expect(group.trajectories[0].recursionTree.children[0]).toMatchObject({ kind: 'episode', turns: 1 });
    expect(seen.map((e) => [e.sampleIndex, e.index, e.turn.action])).toEqual([
      [0, 0, 'code'],
      [1, 0, 'code'],
      [0, 1, 'answer'],
      [1, 1, 'answer'],
    ]);
    // Reported finished: the snapshot taken in the callback is the turn as the trajectory keeps it.
    for (const event of seen) expect(event.turn).toEqual(group.trajectories[event.sampleIndex].turns[event.index]);
    expect(seen[0].turn.observation).toBe('teal');
  });
});
