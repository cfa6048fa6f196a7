import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PROMPT_STYLE,
  renderConversation,
  renderPrompt,
  renderSubcallPrompt,
  segmentsText,
  type PromptTask,
} from './prompt';
import { preflightPromptShapes, PromptDriftError } from './preflight';

const task: PromptTask = {
  question: 'What color is the mirror?',
  context: 'Once upon a time the mirror was blue. '.repeat(100),
  contextTokens: 950,
};

describe('prompt renderer', () => {
  it('shows the question and context metadata, never the whole context', () => {
    const text = segmentsText(renderPrompt(task));
    expect(text).toContain('Question: What color is the mirror?');
    expect(text).toContain(`ctx: ${task.context.length} characters, ~950 tokens.`);
    expect(text.length).toBeLessThan(task.context.length);
    expect(text.endsWith('<|im_start|>assistant\n')).toBe(true);
  });

  it('trains only on completions and their end marker', () => {
    const segments = renderConversation(task, [
      { completion: '```js\nprint(ctx.length)\n```', observation: '3800' },
      { completion: '<answer>blue</answer>' },
    ]);
    const trained = segments.filter((s) => s.trained).map((s) => s.text);
    expect(trained).toEqual(['```js\nprint(ctx.length)\n```<|im_end|>', '<answer>blue</answer><|im_end|>']);
    expect(segmentsText(segments)).toContain('<|im_start|>user\nOutput:\n3800<|im_end|>\n<|im_start|>assistant\n');
  });

  it('each turn extends the previous prompt exactly (token-in, token-out friendly)', () => {
    const one = segmentsText(renderConversation(task, [{ completion: 'a', observation: 'b' }]));
    const two = segmentsText(renderConversation(task, [{ completion: 'a', observation: 'b' }, { completion: 'c' }]));
    expect(two.startsWith(one)).toBe(true);
  });

  it('renders sub-call prompts with the chunk', () => {
    const text = segmentsText(renderSubcallPrompt('Which city?', 'signed in Oslo'));
    expect(text).toContain('Which city?\n\nText:\nsigned in Oslo');
  });
});

describe('preflight', () => {
  const sftExample = renderConversation(task, [{ completion: '<answer>blue</answer>' }]);

  it('passes when the SFT example and the rollout prompt share their prompt', () => {
    expect(() => preflightPromptShapes(sftExample, renderPrompt(task))).not.toThrow();
  });

  it('stops a run whose prompts drifted, showing the difference', () => {
    const drifted = renderPrompt(task, { ...DEFAULT_PROMPT_STYLE, system: 'compact' });
    expect(() => preflightPromptShapes(sftExample, drifted)).toThrow(PromptDriftError);
    try {
      preflightPromptShapes(sftExample, drifted);
    } catch (error) {
      const diff = (error as PromptDriftError).diff;
      expect(diff).toMatch(/^- You answer a question about a long document/m);
      expect(diff).toMatch(/^\+ ctx is the document \(JS REPL\)/m);
    }
  });

  it('catches a preview-length drift too', () => {
    const drifted = renderPrompt(task, { ...DEFAULT_PROMPT_STYLE, previewChars: 20 });
    expect(() => preflightPromptShapes(sftExample, drifted)).toThrow(/differ for the same task/);
  });

  it('refuses an SFT example with nothing to train on', () => {
    expect(() => preflightPromptShapes(renderPrompt(task), renderPrompt(task))).toThrow(/no trained tokens/);
  });
});
