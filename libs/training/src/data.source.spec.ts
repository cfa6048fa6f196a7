import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderSftSubcall } from '@fathom/rlm';
import { generateReaderExamples } from '@fathom/tasks';
import { describe, expect, it } from 'vitest';
import { parseSftConfig } from './config';
import { readTeacherConversations } from './data.source';
import { TEST_STYLE, writeTinyFixture } from './testing/fixtures';

describe('the reader curriculum in the SFT data', () => {
  it('mixes reader examples in at perEpisode per teacher episode, each rendered as its leaf sub-call', async () => {
    const f = await writeTinyFixture(3);
    const readers = [...generateReaderExamples({ split: 'train', n: 10, seed: 1 })];
    const file = join(f.dir, 'readers.jsonl');
    await writeFile(file, readers.map((r) => JSON.stringify(r) + '\n').join(''));
    const data = { examples: f.examples, tasks: f.tasks, subcalls: true, readers: { file, perEpisode: 2 } };
    const conversations = await readTeacherConversations(data, TEST_STYLE, TEST_STYLE);
    expect(conversations.filter((c) => c.kind === 'episode')).toHaveLength(3);
    const leaves = conversations.filter((c) => c.taskId.startsWith('reader/'));
    expect(leaves.map((c) => c.id)).toEqual(['reader/1', 'reader/2', 'reader/3', 'reader/4', 'reader/5', 'reader/6']);
    leaves.forEach((c, i) => {
      expect(c.kind).toBe('subcall');
      expect(c.segments).toEqual(renderSftSubcall(readers[i]));
    });
    const none = await readTeacherConversations({ ...data, readers: { file, perEpisode: 0 } }, TEST_STYLE, TEST_STYLE);
    expect(none).toHaveLength(3);
    await expect(
      readTeacherConversations({ ...data, readers: { file, perEpisode: 4 } }, TEST_STYLE, TEST_STYLE),
    ).rejects.toThrow(/10 reader examples, the mix wants 12/);
    await writeFile(file, JSON.stringify({ ...readers[0], chunk: undefined, extra: 1 }) + '\n');
    await expect(
      readTeacherConversations({ ...data, readers: { file, perEpisode: 1 } }, TEST_STYLE, TEST_STYLE),
    ).rejects.toThrow(/readers\.jsonl:1:/);
  });

  it('takes readers in the teacher data config, and rejects a bad ratio or an unknown key', () => {
    const base = { model: {}, promptStyle: TEST_STYLE, rolloutPromptStyle: TEST_STYLE };
    const data = { format: 'teacher', examples: 'a.jsonl', tasks: 't.jsonl' } as const;
    const config = parseSftConfig({ ...base, data: { ...data, readers: { file: 'r.jsonl', perEpisode: 1.5 } } });
    expect(config.data).toMatchObject({ readers: { file: 'r.jsonl', perEpisode: 1.5 } });
    expect(() =>
      parseSftConfig({ ...base, data: { ...data, readers: { file: 'r.jsonl', perEpisode: -1 } } }),
    ).toThrow();
    expect(() =>
      parseSftConfig({ ...base, data: { ...data, readers: { file: 'r.jsonl', perEpisode: 1, ratio: 2 } } }),
    ).toThrow();
  });
});
