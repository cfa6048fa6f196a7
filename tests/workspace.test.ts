import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const root = join(import.meta.dirname, '..');
const require = createRequire(import.meta.url);

function projects(kind: 'apps' | 'libs'): string[] {
  return readdirSync(join(root, kind)).filter((name) => statSync(join(root, kind, name)).isDirectory());
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file));
}

describe('workspace', () => {
  it('runs on Node 24 or newer', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
  });

  it.each([...projects('apps').map((p) => `apps/${p}`), ...projects('libs').map((p) => `libs/${p}`)])(
    '%s is a workspace package named @fathom/<dir> exporting src/index.ts or a CLI',
    (dir) => {
      const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
      expect(pkg.name).toBe(`@fathom/${dir.split('/')[1]}`);
      expect(existsSync(join(root, dir, 'tsconfig.json'))).toBe(true);
      if (dir.startsWith('libs/')) expect(pkg.exports['.']).toBe('./src/index.ts');
    },
  );

  it('no lib imports an app, and no project reaches into another by relative path', () => {
    const apps = projects('apps');
    const offenders: string[] = [];
    for (const lib of projects('libs')) {
      for (const file of sourceFiles(join(root, 'libs', lib))) {
        const text = readFileSync(file, 'utf8');
        for (const match of text.matchAll(/from\s+['"]([^'"]+)['"]/g)) {
          const spec = match[1];
          if (
            apps.some((app) => spec === `@fathom/${app}`) ||
            /(^|\/)apps\//.test(spec) ||
            /\.\.\/\.\.\/\.\.\/libs\//.test(spec)
          ) {
            offenders.push(`${file}: ${spec}`);
          }
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('loads the native packages: isolated-vm >= 7.0.1 and onnxruntime-node', () => {
    const ivmVersion: string = require('isolated-vm/package.json').version;
    const [major, minor, patch] = ivmVersion.split('.').map(Number);
    expect(major * 1e6 + minor * 1e3 + patch).toBeGreaterThanOrEqual(7_000_001);
    const ivm = require('isolated-vm');
    const isolate = new ivm.Isolate({ memoryLimit: 16 });
    try {
      expect(isolate.compileScriptSync('6 * 7').runSync(isolate.createContextSync())).toBe(42);
    } finally {
      isolate.dispose();
    }
    const ort = require('onnxruntime-node');
    expect(typeof ort.InferenceSession.create).toBe('function');
  });

  it('.npmrc skips the onnxruntime CUDA download', () => {
    expect(readFileSync(join(root, '.npmrc'), 'utf8')).toMatch(/^onnxruntime-node-install=skip$/m);
  });
});
