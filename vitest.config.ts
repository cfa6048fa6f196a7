import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';
import { readdirSync } from 'node:fs';

const libs = readdirSync(fileURLToPath(new URL('./libs', import.meta.url)));

export default defineConfig({
  resolve: {
    alias: [
      {
        find: /^@fathom\/training\/testing$/,
        replacement: fileURLToPath(new URL('./libs/training/src/testing.ts', import.meta.url)),
      },
      {
        find: /^@fathom\/queue\/testing$/,
        replacement: fileURLToPath(new URL('./libs/queue/src/testing.ts', import.meta.url)),
      },
      {
        find: /^@fathom\/runtime\/testing$/,
        replacement: fileURLToPath(new URL('./libs/runtime/src/testing.ts', import.meta.url)),
      },
      ...libs.map((name) => ({
        find: new RegExp(`^@fathom/${name}$`),
        replacement: fileURLToPath(new URL(`./libs/${name}/src/index.ts`, import.meta.url)),
      })),
    ],
  },
  test: {
    include: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts', 'apps/**/*.test.ts', 'libs/**/*.test.ts', 'tests/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
