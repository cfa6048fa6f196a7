import { describe, expect, it } from 'vitest';
import { IsolateEpisode, WarmIsolate } from './isolate-episode';
import { DEFAULT_LIMITS } from './limits';

describe('IsolateEpisode llm() bridge', () => {
  it('checks sizes on the strings that arrive, not on what the guest claims', async () => {
    const limits = { ...DEFAULT_LIMITS, maxLlmPromptChars: 10 };
    const replies: string[] = [];
    // While a real step waits in llm(), call the bridge entry again as a guest that got around the prelude would.
    const episode: IsolateEpisode = new IsolateEpisode(
      'e',
      0,
      limits,
      WarmIsolate.create(32, () => {}),
      '',
      '',
      async () => {
        replies.push(await episode.llmFromGuest('p'.repeat(50), undefined, 1, 0));
        replies.push(await episode.llmFromGuest(null, null, 'lots', 0));
        replies.push(await episode.llmFromGuest('ok', 42, 2, 0));
        return { text: 'fine', promptTokens: 1, completionTokens: 1 };
      },
    );
    try {
      const result = await episode.run('print(llm("q"))');
      expect(result).toMatchObject({ error: null, stdout: 'fine\n' });
      expect(replies).toEqual([
        'lllm() prompt of 50 characters exceeds the limit of 10 characters (maxLlmPromptChars)',
        'ellm() received a malformed call',
        'ellm() received a malformed call',
      ]);
      expect(result.llmCalls.map((call) => [call.promptChars, call.error ?? 'ok'])).toEqual([
        [50, expect.stringMatching(/maxLlmPromptChars/)],
        [1, 'ok'],
      ]);
    } finally {
      episode.close();
    }
  });
});
