// A modest rule set: the recommended rules of eslint and typescript-eslint, plus a few that catch
// real bugs in async server code. Type-aware rules are left out to keep `npm test` fast.
import { readFileSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// shoal layering: src/shoal/layers.json lists the layers lowest first; a folder (or top-level file)
// may import only layers before it. test/shoal/layers.test.ts checks the same order on the whole
// folder graph (and sees what these per-file rules cannot, such as a folder missing from the list).
const SHOAL_LAYERS = JSON.parse(readFileSync(new URL('./src/shoal/layers.json', import.meta.url), 'utf8')).order;
const SHOAL_DEPTHS = 6; // files this many folders below their layer folder are covered (src/shoal has 2: engine/duckdb/connectors)

/** For each layer and nesting depth, forbid relative imports (static or `import()`) of any later layer. */
function shoalLayerZones() {
  return SHOAL_LAYERS.flatMap((layer, i) => {
    const above = SHOAL_LAYERS.slice(i + 1);
    if (above.length === 0) return [];
    const allowed = SHOAL_LAYERS.slice(0, i).join(', ') || 'nothing else in src/shoal';
    const message = `shoal layers (src/shoal/layers.json): ${layer} may import only ${allowed}`;
    const target = `(${above.join('|')})(/|\\.js$)`;
    // a top-level file reaches a layer with `./`; a file `depth` folders below its layer folder with
    // depth + 1 `../`
    const zones = [{ files: [`src/shoal/${layer}.ts`], prefix: '\\./' }];
    for (let depth = 0; depth < SHOAL_DEPTHS; depth++) {
      zones.push({ files: [`src/shoal/${layer}/${'*/'.repeat(depth)}*.ts`], prefix: `(\\.\\./){${depth + 1}}` });
    }
    return zones.map(({ files, prefix }) => {
      const regex = `^${prefix}${target}`;
      return {
        files,
        rules: {
          'no-restricted-imports': ['error', { patterns: [{ regex, message }] }],
          'no-restricted-syntax': ['error', { selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\/')}/]`, message }],
        },
      };
    });
  });
}

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
  ...shoalLayerZones(),
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
