import { ByteTokenizer } from '@fathom/model';
import { describe, expect, it } from 'vitest';
import type { Conversation } from './data.source';
import { splitHeldOut, tokenizeConversations } from './dataset';

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
