import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { loadCheckpoint } from '@fathom/model';
import { modelCommand } from './model.command';

const dir = mkdtempSync(join(tmpdir(), 'fathom-cli-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** Runs `fathom model …` in this process and returns what it printed to stdout. */
async function runModel(...args: string[]): Promise<string> {
  const printed: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void printed.push(parts.join(' ')));
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  await modelCommand().exitOverride().parseAsync(args, { from: 'user' });
  return printed.join('\n');
}

describe('fathom model tokenizer, then model init --tokenizer', () => {
  it('trains a BPE on the strings of JSON lines and sizes a new model to it', async () => {
    const texts = join(dir, 'readers.jsonl');
    const line = {
      question: 'What colour is the van?',
      chunk: 'The van is Nesnes. The cart is Tarvok.',
      answer: 'Nesnes',
    };
    writeFileSync(texts, `${Array(30).fill(JSON.stringify(line)).join('\n')}\n`);
    const tok = join(dir, 'tok');
    const trained = JSON.parse(await runModel('tokenizer', '--texts', texts, '--vocab', '280', '--out', tok));
    expect(trained).toMatchObject({ out: tok, vocab: 284 });
    expect(trained.chars_per_token).toBeGreaterThan(2);

    const out = join(dir, 'model');
    expect(JSON.parse(await runModel('init', '--tokenizer', tok, '--out', out))).toMatchObject({ vocab: 284 });
    const checkpoint = await loadCheckpoint(out);
    expect(checkpoint.config.vocabSize).toBe(284);
    expect(checkpoint.config.eosTokenIds).toEqual([280, 282]);
    expect(checkpoint.tokenizer?.encode('Nesnes')).toHaveLength(1);
  });

  it('names the line that is not JSON, and a folder without a tokenizer', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"a": "b"}\nnot json\n');
    await expect(runModel('tokenizer', '--texts', bad, '--vocab', '300', '--out', join(dir, 'x'))).rejects.toThrow(
      `${bad}:2 is not JSON`,
    );
    await expect(runModel('init', '--tokenizer', dir, '--out', join(dir, 'y'))).rejects.toThrow(
      `${dir} has no tokenizer.json`,
    );
  });
});
