import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';
import { readdirSync } from 'node:fs';

const libs = readdirSync(fileURLToPath(new URL('./libs', import.meta.url)));

/**
 * The long checks (1–1.5 minutes each here): services killed mid-run, a 1,000-session load, GRPO against an OpenEnv
 * server and GRPO of a span reader. `npm test` leaves them out; FATHOM_TEST_SLOW=1 runs them, as CI (`.ci/run`) and a
 * run narrowed to paths (`scripts/test.sh <paths>`) do.
 */
const SLOW_TESTS = [
  'tests/e2e/chaos.test.ts',
  'apps/env-service/src/acceptance/load.test.ts',
  'tests/openenv/train-on-openenv.test.ts',
  'libs/training/src/grpo/reader.test.ts',
];

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
    exclude: ['**/node_modules/**', '**/dist/**', ...(process.env.FATHOM_TEST_SLOW === '1' ? [] : SLOW_TESTS)],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
