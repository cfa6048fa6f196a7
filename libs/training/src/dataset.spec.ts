import { ByteTokenizer, MASKED_LOGIT, trainBpeTokenizer } from '@fathom/model';
import { renderSftSubcall } from '@fathom/rlm';
import { describe, expect, it } from 'vitest';
import type { Conversation } from './data.source';
import { splitHeldOut, tokenizeConversations } from './dataset';
import { packBatch } from './tokens';

const tokenizer = new ByteTokenizer();
const conversation = (id: string, taskId: string, prompt: string, answer: string): Conversation => ({
  id,
  taskId,
  kind: 'episode',
  segments: [{ text: prompt, trained: false }, ...(answer ? [{ text: answer, trained: true }] : [])],
});

describe('tokenizeConversations', () => {
  it('drops and counts conversations over seqLen and those without trained tokens, never truncating', () => {
    const { examples, report } = tokenizeConversations(
      [
        conversation('short', 'a', 'p'.repeat(10), 'ok'),
        conversation('long', 'b', 'p'.repeat(30), 'answer'),
        conversation('exact', 'c', 'p'.repeat(18), 'ok'),
        conversation('empty', 'd', 'p', ''),
      ],
      tokenizer,
      20,
    );
    expect(examples.map((e) => e.id)).toEqual(['short', 'exact']);
    expect(examples[1].ids).toHaveLength(20);
    expect(report).toMatchObject({
      conversations: 4,
      kept: 2,
      droppedTooLong: 1,
      droppedNoTrainedTokens: 1,
      longestTokens: 36,
      droppedExamples: ['long (36 tokens)', 'empty (no trained tokens)'],
    });
  });
});

describe('tokenizeConversations with extractive reads', () => {
  const read = (id: string, chunk: string, answer: string): Conversation => ({
    id,
    taskId: id,
    kind: 'subcall',
    segments: renderSftSubcall({ question: 'What colour is the van?', chunk, answer }),
    chunk,
  });
  const reads = [
    read('stated', 'The car is blue. The van is crimson.', 'crimson'),
    read('unknown', 'The car is blue.', 'unknown'),
    read('cut', 'The van is crimson.', 'crims'),
    read('absent', 'The van is crimson.', 'scarlet'),
  ];

  it('gives each read whose answer is a whole-word span of its chunk (or "unknown") its span, and drops the rest', () => {
    const { examples, report } = tokenizeConversations(reads, tokenizer, 512, { extractive: true });
    expect(examples.map((e) => e.id)).toEqual(['stated', 'unknown']);
    expect(examples.every((e) => e.span !== undefined)).toBe(true);
    expect(report).toMatchObject({ kept: 2, extractive: 2, droppedNotExtractive: 2 });
    expect(report.droppedExamples).toEqual([
      'cut (answer is not a span of its chunk)',
      'absent (answer is not a span of its chunk)',
    ]);
    expect(tokenizeConversations(reads, tokenizer, 512).examples.some((e) => e.span !== undefined)).toBe(false);
  });

  it('keeps the same reads with a trained BPE, whose words encode alike in the chunk and in the answer', () => {
    const bpe = trainBpeTokenizer(
      reads.flatMap((r) => r.segments.map((s) => s.text)),
      { vocabSize: 300, minFrequency: 1 },
    );
    expect(bpe.encode('crimson').length).toBeLessThan('crimson'.length);
    const { examples, report } = tokenizeConversations(reads, bpe, 512, { extractive: true });
    expect(examples.map((e) => e.id)).toEqual(['stated', 'unknown']);
    expect(report).toMatchObject({ extractive: 2, droppedNotExtractive: 2 });
  });

  it("masks, before the answer's first token, every token that starts no span of the chunk", () => {
    const [stated] = tokenizeConversations(reads, tokenizer, 512, { extractive: true }).examples;
    const vocabSize = 260;
    const { batch } = packBatch([stated], { padId: 0, padMultiple: 1, maxLength: 512, vocabSize });
    const first = stated.mask.indexOf(1);
    const row = batch.logitBias!.subarray((first - 1) * vocabSize, first * vocabSize);
    const open = [...row.keys()].filter((t) => row[t] === 0).map((t) => String.fromCharCode(t));
    expect(open.sort()).toEqual([' ', '.', 'T', 'b', 'c', 'i', 'u', 'v']);
    expect(row['x'.charCodeAt(0)]).toBe(MASKED_LOGIT);
  });
});

describe('splitHeldOut', () => {
  it('holds out whole tasks, deterministically by seed, keeping at least one task on each side', () => {
    const items = Array.from({ length: 40 }, (_, i) => ({ taskId: `t${i % 20}`, i }));
    const { train, heldOut } = splitHeldOut(items, 0.1, 3);
    const heldTasks = new Set(heldOut.map((e) => e.taskId));
    expect(heldTasks.size).toBe(2);
    expect(heldOut).toHaveLength(4);
    expect(train.some((e) => heldTasks.has(e.taskId))).toBe(false);
    expect(splitHeldOut(items, 0.1, 3).heldOut).toEqual(heldOut);
    expect(splitHeldOut(items, 0.01, 3).heldOut).toHaveLength(2);
    expect(splitHeldOut(items, 0, 3).heldOut).toHaveLength(0);
    expect(splitHeldOut(items.slice(0, 1), 0.5, 3).train).toHaveLength(1);
  });
});
