import { ByteTokenizer } from '@fathom/model';
import { IM_END, renderConversation } from '@fathom/rlm';
import { describe, expect, it } from 'vitest';
import { TrainingError } from './errors';
import { encodeConversation, packBatch, sftTokenWeights, trainedCount } from './tokens';

const tokenizer = new ByteTokenizer();
const imEnd = tokenizer.tokenId(IM_END)!;

describe('encodeConversation', () => {
  it('marks exactly the trained segments’ tokens, with chat markers as single special ids', () => {
    const segments = renderConversation({ question: 'Q?', context: 'abc', contextTokens: 1 }, [
      { completion: 'code', observation: 'out' },
      { completion: '<answer>x</answer>' },
    ]);
    const seq = encodeConversation(segments, tokenizer);
    expect(seq.ids).toEqual(segments.flatMap((s) => tokenizer.encode(s.text)));
    const trainedText = tokenizer.decode(seq.ids.filter((_, i) => seq.mask[i] === 1));
    expect(trainedText).toBe(`code${IM_END}<answer>x</answer>${IM_END}`);
    expect(trainedCount(seq)).toBe('code'.length + '<answer>x</answer>'.length + 2);
    expect(seq.ids.filter((id) => id === imEnd)).toHaveLength(5);
  });
});

describe('packBatch', () => {
  const a = { ids: [1, 2, 3, 4, 5], mask: [0, 0, 1, 1, 0] };
  const b = { ids: [7, 8, 9], mask: [0, 1, 1] };

  it('shifts targets left, puts each mask on its predicted token and right-pads to the multiple', () => {
    const p = packBatch([a, b], { padId: 259, padMultiple: 3, maxLength: 16 });
    expect(p.batch).toMatchObject({ batch: 2, length: 6 });
    expect(p.batch.ids).toEqual([1, 2, 3, 4, 259, 259, 7, 8, 259, 259, 259, 259]);
    expect(p.batch.targets).toEqual([2, 3, 4, 5, 259, 259, 8, 9, 259, 259, 259, 259]);
    expect(Array.from(p.targetMask)).toEqual([0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0]);
    expect(p).toMatchObject({ rowLengths: [4, 2], tokens: 6, trainedTokens: 4 });
  });

  it('caps the padded length at maxLength and rejects rows longer than it', () => {
    expect(packBatch([a], { padId: 0, padMultiple: 64, maxLength: 5 }).batch.length).toBe(5);
    expect(() => packBatch([a], { padId: 0, padMultiple: 1, maxLength: 3 })).toThrow(/4 positions exceeds/);
  });

  it('rejects a mask whose length disagrees with the ids (a dropped mask is loud)', () => {
    expect(() => packBatch([{ ids: [1, 2, 3], mask: [0, 1] }], { padId: 0, padMultiple: 1, maxLength: 8 })).toThrow(
      TrainingError,
    );
  });

  it('weights the trained tokens −1/count so the loss is a token-level mean', () => {
    const w = sftTokenWeights(packBatch([a, b], { padId: 0, padMultiple: 1, maxLength: 8 }));
    expect(Array.from(w)).toEqual([0, -0.25, -0.25, 0, -0.25, -0.25, 0, 0].map(Math.fround));
    expect(() =>
      sftTokenWeights(packBatch([{ ids: [1, 2], mask: [1, 0] }], { padId: 0, padMultiple: 1, maxLength: 8 })),
    ).toThrow(/no trained tokens/);
  });
});
