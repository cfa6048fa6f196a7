import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadRunConfig } from './grpo/run.config';
import { loadSftConfig } from './config';
import { loadReaderSftConfig } from './reader.trainer';

/**
 * What every shipped config resolves to, defaults filled in, written down when the run, SFT and episode schemas were
 * merged into one config tree (issue 51): a schema change that moves a shipped config's value fails here.
 */
const resolved = JSON.parse(
  readFileSync(new URL('./testing/shipped-configs.resolved.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

const root = fileURLToPath(new URL('../../../', import.meta.url));
const files = (dir: string) =>
  readdirSync(join(root, dir))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(dir, f));

describe('the shipped configs (configs/)', () => {
  it('are all written down', () => {
    expect([...files('configs/grpo'), ...files('configs/sft')]).toEqual(Object.keys(resolved));
  });

  it.each(files('configs/grpo'))('%s resolves to the same run config', async (file) => {
    expect(JSON.parse(JSON.stringify(await loadRunConfig(join(root, file))))).toEqual(resolved[file]);
  });

  it.each(files('configs/sft'))('%s resolves to the same SFT config', async (file) => {
    const config = (await loadReaderSftConfig(join(root, file))) ?? (await loadSftConfig(join(root, file)));
    expect(JSON.parse(JSON.stringify(config))).toEqual(resolved[file]);
  });
});
