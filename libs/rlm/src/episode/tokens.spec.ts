import { ByteTokenizer } from '@fathom/model';
import { describe, expect, it } from 'vitest';
import { IM_END, renderCompletion, renderConversation, renderObservation, renderPrompt, segmentsText } from '../prompt';
import { encodeSegments, prefixMismatch } from './tokens';

const tokenizer = new ByteTokenizer();
const task = { question: 'Q?', context: 'some document', contextTokens: 4 };
const imEnd = tokenizer.tokenId(IM_END)!;

describe('encodeSegments', () => {
  it('uses the sampled ids for trained segments, so text that does not round-trip keeps its exact ids', () => {
    // Two bytes that are not valid UTF-8: decoding gives U+FFFD twice, and re-encoding that would give 6 other bytes.
    const sampled = { tokens: [0xff, 0xfe, imEnd], logprobs: [-1, -2, -0.5] };
    const completion = tokenizer.decode(sampled.tokens.slice(0, -1));
    expect(tokenizer.encode(completion)).not.toEqual([0xff, 0xfe]);
    const segments = renderConversation(task, [{ completion, observation: 'out' }]);
    const seq = encodeSegments(segments, [sampled], tokenizer);
    const promptLength = tokenizer.encode(segmentsText(renderPrompt(task))).length;
    expect(seq.ids.slice(promptLength, promptLength + 3)).toEqual(sampled.tokens);
    expect(seq.logprobs.slice(promptLength, promptLength + 3)).toEqual(sampled.logprobs);
    expect(seq.mask.reduce((a, b) => a + b, 0)).toBe(3);
    expect(seq.mask.slice(promptLength, promptLength + 3)).toEqual([1, 1, 1]);
    const tail = [...renderCompletion(completion).slice(1), ...renderObservation('out')];
    expect(seq.ids.slice(promptLength + 3)).toEqual(tokenizer.encode(segmentsText(tail)));
    expect(seq.logprobs.slice(promptLength + 3).every((l) => l === 0)).toBe(true);
  });

  it('refuses a trained segment without a sampled turn', () => {
    expect(() => encodeSegments(renderConversation(task, [{ completion: 'x' }]), [], tokenizer)).toThrow(RangeError);
  });
});

describe('prefixMismatch', () => {
  const seq = (ids: number[], mask = ids.map(() => 0)) => ({ ids, mask, logprobs: ids.map(() => 0) });

  it('accepts an exact extension', () => {
    expect(prefixMismatch(seq([104, 105]), seq([104, 105, 33]), tokenizer)).toBeNull();
  });

  it('shows the first differing position with ids and text on both sides', () => {
    const diff = prefixMismatch(
      seq([...tokenizer.encode('hello world')]),
      seq(tokenizer.encode('hello World!')),
      tokenizer,
    );
    expect(diff).toContain('first difference at position 6 of 11');
    expect(diff).toContain('- fed/sampled: [');
    expect(diff).toContain('"hello world"');
    expect(diff).toContain('"hello World!"');
  });

  it('catches a mask that changed under the same ids', () => {
    expect(prefixMismatch(seq([1, 2], [0, 1]), seq([1, 2, 3], [0, 0, 0]), tokenizer)).toMatch(
      /mask differs at position 1/,
    );
  });
});
