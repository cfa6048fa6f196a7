import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const GENERATED = fileURLToPath(new URL('./generated/', import.meta.url));

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

describe('generated proto types', () => {
  const out = mkdtempSync(join(tmpdir(), 'fathom-gen-proto-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('match what scripts/gen-proto.sh generates from proto/ (run it after editing a .proto)', () => {
    execFileSync('bash', [join(REPO, 'scripts/gen-proto.sh'), out], { cwd: REPO, stdio: 'pipe' });
    const committed = listFiles(GENERATED);
    expect(listFiles(out)).toEqual(committed);
    expect(committed.length).toBeGreaterThan(0);
    for (const file of committed) {
      expect(readFileSync(join(out, file), 'utf8'), file).toBe(readFileSync(join(GENERATED, file), 'utf8'));
    }
  });
});
