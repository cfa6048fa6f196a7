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
 *
 * Sources with decorators (the Nest modules, controllers, gateways and filters) are compiled by TypeScript itself,
 * with tsconfig.base.json's `emitDecoratorMetadata`: esbuild emits no `design:paramtypes`, so the compiled services
 * carry the metadata that Nest reads for constructor injection. Their constructors still name each class they inject
 * (`@Inject(X)`), because the tests, the demo and the CLI run the sources through tsx and vitest (esbuild).
 */
import { readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { build, type Metafile, type PartialMessage, type Plugin } from 'esbuild';
import ts from 'typescript';

export const ROOT = join(import.meta.dirname, '..');
export const DIST = join(ROOT, 'dist');

/** `to` seen from the folder `from`, with forward slashes (what a bundle and esbuild's messages name). */
const posixRelative = (from: string, to: string) => relative(from, to).split(sep).join('/');

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

/** A line that starts with a decorator (`@Controller()`, `@Inject(X) private readonly …`). */
const DECORATOR_LINE = /^\s*@[A-Za-z]/m;

/** tsconfig.base.json's compiler options, emitting JavaScript with an inline source map for esbuild to follow. */
function decoratorCompilerOptions(): ts.CompilerOptions {
  const file = join(ROOT, 'tsconfig.base.json');
  const { config, error } = ts.readConfigFile(file, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const { options, errors } = ts.convertCompilerOptionsFromJson(config.compilerOptions, ROOT, file);
  if (errors.length > 0) throw new Error(ts.flattenDiagnosticMessageText(errors[0]!.messageText, '\n'));
  if (!options.emitDecoratorMetadata) throw new Error(`${file} does not set emitDecoratorMetadata`);
  return { ...options, noEmit: false, paths: undefined, inlineSourceMap: true, inlineSources: true };
}

/**
 * Loads each source: `import.meta.url` and `import.meta.dirname` become the source's own location seen from `dist/`,
 * and a source with decorators is compiled by TypeScript (decorator metadata included).
 */
function sources(): Plugin {
  return {
    name: 'fathom-sources',
    setup(b) {
      const options = decoratorCompilerOptions();
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        const decorated = DECORATOR_LINE.test(text);
        if (!decorated && !text.includes('import.meta.')) return undefined;
        const fromDist = (path: string) => posixRelative(DIST, path);
        const located = text
          .replaceAll('import.meta.url', `new URL(${JSON.stringify(fromDist(args.path))}, import.meta.url).href`)
          .replaceAll(
            'import.meta.dirname',
            `(import.meta.dirname + ${JSON.stringify(`/${fromDist(dirname(args.path))}`)})`,
          );
        if (!decorated) return { contents: located, loader: 'ts' };
        const out = ts.transpileModule(located, {
          fileName: args.path,
          compilerOptions: options,
          reportDiagnostics: true,
        });
        const errors = (out.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
        if (errors.length > 0) return { errors: errors.map((d) => buildError(d, args.path)) };
        return { contents: out.outputText, loader: 'js' };
      });
    },
  };
}

/** A TypeScript diagnostic as an esbuild error, at its place in the source. */
function buildError(d: ts.Diagnostic, file: string): PartialMessage {
  const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
  const place = at && { line: at.line + 1, column: at.character };
  return {
    text: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    location: { file: posixRelative(ROOT, file), ...place },
  };
}

/** What a build made: the metafile (inputs, outputs and what each output imports) and each output's text by path. */
export interface Bundles {
  metafile: Metafile;
  /** Output path relative to the repository root (`dist/env-service.mjs`) → its text; empty when written to disk. */
  texts: Map<string, string>;
}

/**
 * Bundles every entry. With `write`, into `dist/`, emptied first; without, in memory only (what the deploy test
 * reads).
 */
export async function bundleAll({ write }: { write: boolean }): Promise<Bundles> {
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
    plugins: [externalPackages, sources()],
  });
  const texts = new Map((result.outputFiles ?? []).map((f) => [posixRelative(ROOT, f.path), f.text]));
  return { metafile: result.metafile, texts };
}

/** Builds every entry into `dist/`. */
export const buildAll = () => bundleAll({ write: true });

if (process.argv[1] === import.meta.filename) {
  const started = Date.now();
  const { metafile } = await buildAll();
  for (const [file, out] of Object.entries(metafile.outputs))
    if (file.endsWith('.mjs')) process.stdout.write(`${file}  ${(out.bytes / 1024).toFixed(0)} KiB\n`);
  process.stdout.write(`built ${Object.keys(ENTRIES).length} entries in ${Date.now() - started} ms\n`);
}
