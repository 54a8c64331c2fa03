// A modest rule set: the recommended rules of eslint and typescript-eslint, plus a few that catch
// real bugs in async server code. Type-aware rules are left out to keep `npm test` fast.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly',
        clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  // tik layering: cli and server depend on app, stores and the kernel, never the reverse; only
  // cli/ imports cli/ (the server and every other layer go through src/tik/app).
  {
    files: ['src/tik/**/*.ts'],
    ignores: ['src/tik/cli/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '(^|/)cli/', message: 'only src/tik/cli imports cli/: use the application layer (src/tik/app)' }] }],
    },
  },
  // The tik kernel is pure: no I/O, no clock, no other layer (it takes everything as arguments).
  {
    files: ['src/tik/kernel/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^node:', message: 'the tik kernel does no I/O' },
            { regex: '^(fs|net|http|https|child_process|os|path|dgram|tls|worker_threads|crypto)(/|$)', message: 'the tik kernel does no I/O' },
            { regex: '^\\.\\./(cli|server|store|sync|app|effects|recur|shard|verify|testing)/', message: 'the tik kernel depends on edn and errors only' },
            { regex: '^(fastify|pg|better-sqlite3|commander|jose)', message: 'the tik kernel depends on no service library' },
          ],
        },
      ],
    },
  },
);
