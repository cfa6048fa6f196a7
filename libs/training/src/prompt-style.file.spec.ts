import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROMPT_STYLE_FILE, readPromptStyle, writePromptStyle } from './prompt-style.file';

describe('checkpoint prompt style', () => {
  it('round-trips the style a checkpoint was trained with', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fathom-style-'));
    expect(await readPromptStyle(dir)).toBeNull();
    await writePromptStyle(dir, { system: 'compact', previewChars: 96 });
    expect(await readPromptStyle(dir)).toEqual({ system: 'compact', previewChars: 96 });
  });

  it('refuses a file that is not a prompt style, naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fathom-style-'));
    writeFileSync(join(dir, PROMPT_STYLE_FILE), JSON.stringify({ system: 'terse', previewChars: 10 }));
    await expect(readPromptStyle(dir)).rejects.toThrow(new RegExp(`${PROMPT_STYLE_FILE} is not a prompt style`));
  });
});
