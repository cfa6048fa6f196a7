import type { StepResult } from '@fathom/sandbox';
import { describe, expect, it } from 'vitest';
import { applyTurn } from './turn';

const fence = '```';

/** Test double for a sandbox episode: records the code it is given and returns a fixed result. */
function recordingEpisodeDouble() {
  const ran: string[] = [];
  const result: StepResult = {
    stdout: 'out\n',
    truncatedChars: 0,
    error: null,
    variables: [],
    cpuMs: 0.1,
    wallMs: 0.2,
    llmCalls: [],
    alive: true,
    answer: null,
  };
  return { ran, result, run: async (code: string) => (ran.push(code), result) };
}

describe('applyTurn', () => {
  it('runs the code of a code turn', async () => {
    const episode = recordingEpisodeDouble();
    const outcome = await applyTurn(episode, `Searching.\n${fence}js\nprint(ctx.length)\n${fence}`);
    expect(outcome).toEqual({ kind: 'code', code: 'print(ctx.length)', result: episode.result });
    expect(episode.ran).toEqual(['print(ctx.length)']);
  });

  it('returns the answer of an answer turn', async () => {
    const episode = recordingEpisodeDouble();
    expect(await applyTurn(episode, 'It is <answer>teal</answer>')).toEqual({ kind: 'answer', answer: 'teal' });
    expect(episode.ran).toEqual([]);
  });

  it('lets the answer win over code in the same turn, running nothing', async () => {
    const episode = recordingEpisodeDouble();
    const outcome = await applyTurn(episode, `${fence}js\nprint(1)\n${fence}\n<answer>7</answer>`);
    expect(outcome).toEqual({ kind: 'answer', answer: '7' });
    expect(episode.ran).toEqual([]);
  });

  it('returns none for a turn with neither', async () => {
    const episode = recordingEpisodeDouble();
    expect(await applyTurn(episode, `${fence}python\nprint(1)\n${fence}`)).toEqual({ kind: 'none' });
    expect(episode.ran).toEqual([]);
  });
});
