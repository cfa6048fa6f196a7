import { describe, expect, it } from 'vitest';
import { GroupBatcher } from './group.batcher';

/** A batch runner that records each batch it ran and answers each group with its double. */
function recorder(delayMs = 0) {
  const batches: number[][] = [];
  const runAll = async (groups: number[]) => {
    batches.push([...groups]);
    await new Promise((r) => setTimeout(r, delayMs));
    return groups.map((g) => g * 2);
  };
  return { batches, runAll };
}

describe('GroupBatcher', () => {
  it('runs the groups of one key that arrive within the window as one batch, each getting its own result', async () => {
    const batcher = new GroupBatcher<number, number>({ maxGroups: 8, windowMs: 30 });
    const { batches, runAll } = recorder();
    const first = batcher.run('run@1:4', 1, runAll);
    await new Promise((r) => setTimeout(r, 5));
    const second = batcher.run('run@1:4', 2, runAll);
    expect(await Promise.all([first, second])).toEqual([2, 4]);
    expect(batches).toEqual([[1, 2]]);
  });

  it('starts a batch as soon as it holds maxGroups groups, without waiting out the window', async () => {
    const batcher = new GroupBatcher<number, number>({ maxGroups: 2, windowMs: 60_000 });
    const { batches, runAll } = recorder();
    expect(await Promise.all([batcher.run('k', 1, runAll), batcher.run('k', 2, runAll)])).toEqual([2, 4]);
    expect(batches).toEqual([[1, 2]]);
  });

  it('keeps keys apart, and sends a group that arrives after its batch started to the next batch', async () => {
    const batcher = new GroupBatcher<number, number>({ maxGroups: 2, windowMs: 10 });
    const { batches, runAll } = recorder(30);
    const results = [batcher.run('a', 1, runAll), batcher.run('b', 2, runAll), batcher.run('a', 3, runAll)];
    await new Promise((r) => setTimeout(r, 5));
    results.push(batcher.run('a', 4, runAll));
    expect(await Promise.all(results)).toEqual([2, 4, 6, 8]);
    expect(batches).toEqual([[1, 3], [2], [4]]);
  });

  it('fails every group of a failed batch with its error, and later batches still run', async () => {
    const batcher = new GroupBatcher<number, number>({ maxGroups: 2, windowMs: 10 });
    const broken = async () => Promise.reject(new Error('sandbox gone'));
    const failed = [batcher.run('k', 1, broken), batcher.run('k', 2, broken)];
    for (const f of failed) await expect(f).rejects.toThrow('sandbox gone');
    const { runAll } = recorder();
    expect(await batcher.run('k', 3, runAll)).toBe(6);
  });

  it('refuses a batch whose runner returns a result count other than its group count', async () => {
    const batcher = new GroupBatcher<number, number>({ maxGroups: 2, windowMs: 10 });
    const short = async () => [0];
    const results = [batcher.run('k', 1, short), batcher.run('k', 2, short)];
    for (const r of results) await expect(r).rejects.toThrow('a batch of 2 groups returned 1 results');
  });
});
