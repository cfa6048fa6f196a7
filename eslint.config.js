import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '.nx/**',
      'data/**',
      'libs/persistence/src/generated/**',
      'libs/rpc/src/generated/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../../libs/*', '../../../libs/*', '../../apps/*', '../../../apps/*'],
              message: 'Import other projects through @fathom/<name>.',
            },
          ],
        },
      ],
    },
  },
  {
    // Programs for the REPL sandbox (guest code): its globals are the REPL's (libs/rlm/src/prompt.ts).
    files: ['experiments/**/programs/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        ['ctx', 'question', 'answer', 'print', 'llm', 'search', 'grep', 'sentences', 'chunks'].map((g) => [
          g,
          'readonly',
        ]),
      ),
    },
  },
  {
    // The dashboard's ES modules run in the browser.
    files: ['apps/admin-api/dashboard/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['libs/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/apps/**', '@fathom/*-service', '@fathom/admin-api', '@fathom/rollout-worker', '@fathom/cli'],
              message: 'A lib never imports an app.',
            },
          ],
        },
      ],
    },
  },
);
