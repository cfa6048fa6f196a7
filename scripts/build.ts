/**
 * Compiles the services, the CLI and the sandbox worker into `dist/`: one ES module per entry, every FATHOM source
 * bundled in, every npm package left to node_modules. The images run these with plain Node (no tsx, no dev
 * dependencies); development and the tests keep running the sources through tsx.
 *
 *   node --import tsx scripts/build.ts      # npm run build
 *
 * A source that finds a file next to itself (`new URL('../configs/default.json', import.meta.url)`,
 * `import.meta.dirname`) keeps finding it: the build points `import.meta.url` and `import.meta.dirname` of each source
 * at the source's own location, so a bundle runs from `dist/` inside the repository tree (the images copy that tree).
 */
import { readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';

export const ROOT = join(import.meta.dirname, '..');
export const DIST = join(ROOT, 'dist');

/** What the build writes: `dist/<name>.mjs` from each source entry. */
export const ENTRIES: Record<string, string> = {
  'env-service': 'apps/env-service/src/main.ts',
  'admin-api': 'apps/admin-api/src/main.ts',
  'reward-service': 'apps/reward-service/src/main.ts',
  'rollout-worker': 'apps/rollout-worker/src/main.ts',
  'learner-service': 'apps/learner-service/src/main.ts',
  cli: 'apps/cli/src/main.ts',
  // Forked by the sandbox pool (libs/sandbox/src/pool.ts) of a compiled service.
  'sandbox-worker': 'libs/sandbox/src/worker.ts',
};

/** The npm package an import names (`@scope/name` or `name`), or null for a FATHOM source or a Node builtin. */
export function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return null;
  if (specifier.startsWith('@fathom/')) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Leaves npm packages to node_modules; FATHOM's workspaces (`@fathom/*`) are sources, bundled like the rest. */
const externalPackages: Plugin = {
  name: 'fathom-external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (packageOf(args.path) === null ? undefined : { external: true }));
  },
};

/** `import.meta.url` and `import.meta.dirname` of each source, as the source's own location seen from `dist/`. */
const sourceLocations: Plugin = {
  name: 'fathom-source-locations',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.')) return undefined;
      const fromDist = (path: string) => relative(DIST, path).split(sep).join('/');
      const contents = text
        .replaceAll('import.meta.url', `new URL(${JSON.stringify(fromDist(args.path))}, import.meta.url).href`)
        .replaceAll(
          'import.meta.dirname',
          `(import.meta.dirname + ${JSON.stringify(`/${fromDist(dirname(args.path))}`)})`,
        );
      return { contents, loader: 'ts' };
    });
  },
};

/**
 * Bundles every entry and returns the metafile (inputs, outputs and what each output imports). With `write`, into
 * `dist/`, emptied first; without, in memory only (what the deploy test reads).
 */
export async function bundleAll({ write }: { write: boolean }): Promise<Metafile> {
  if (write) await rm(DIST, { recursive: true, force: true });
  const result = await build({
    write,
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, source]) => [name, join(ROOT, source)])),
    outdir: DIST,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
    tsconfig: join(ROOT, 'tsconfig.base.json'),
    // A compiled service forks this bundle for its sandbox workers instead of worker.ts through tsx.
    define: { __FATHOM_SANDBOX_WORKER__: JSON.stringify('dist/sandbox-worker.mjs') },
    plugins: [externalPackages, sourceLocations],
  });
  return result.metafile;
}

/** Builds every entry into `dist/`. */
export const buildAll = () => bundleAll({ write: true });

if (process.argv[1] === import.meta.filename) {
  const started = Date.now();
  const metafile = await buildAll();
  for (const [file, out] of Object.entries(metafile.outputs))
    if (file.endsWith('.mjs')) process.stdout.write(`${file}  ${(out.bytes / 1024).toFixed(0)} KiB\n`);
  process.stdout.write(`built ${Object.keys(ENTRIES).length} entries in ${Date.now() - started} ms\n`);
}
