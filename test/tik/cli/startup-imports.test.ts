import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * CLI start-up cost (issue 18): `tik --help` and every verb on a file store must not load the
 * server (fastify, zod) or the SQL drivers (pg, better-sqlite3); they are imported by the code that
 * needs them. Checked on the static import graph of the sources, so it is exact and not timed.
 */
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const HEAVY = ['fastify', 'zod', 'pg', 'better-sqlite3', 'jose', '@duckdb/node-api', 'ioredis', 'mysql2'];

/** Static (value) imports and re-exports of a module: `import type`, `export type` and `import()` are not loads at start-up. */
function staticSpecifiers(source: string): string[] {
  const out: string[] = [];
  // strip comments so that examples in doc comments do not count
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  for (const m of code.matchAll(/^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*'([^']+)'/gm)) {
    if (m[2]) continue;
    const clause = m[3] ?? '';
    // `import { type A, type B } from` loads nothing either
    const braces = /^\{([^}]*)\}$/.exec(clause.trim());
    if (braces && braces[1]!.split(',').every((n) => n.trim() === '' || n.trim().startsWith('type '))) continue;
    out.push(m[4]!);
  }
  for (const m of code.matchAll(/^\s*import\s+'([^']+)'/gm)) out.push(m[1]!);
  return out;
}

function packagesLoadedFrom(entry: string, modules = new Set<string>()): Map<string, string> {
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    modules.add(file.slice(repo.length + 1));
    for (const spec of staticSpecifiers(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) stack.push(join(dirname(file), spec.replace(/\.js$/, '.ts')));
      else if (!spec.startsWith('node:') && !packages.has(spec)) packages.set(spec, file.slice(repo.length + 1));
    }
  }
  return packages;
}

describe('tik CLI start-up', () => {
  it('loads neither the server nor a SQL driver until a command needs it', () => {
    const loaded = packagesLoadedFrom(join(repo, 'src/tik/cli/main.ts'));
    const heavy = [...loaded].filter(([p]) => HEAVY.includes(p)).map(([p, from]) => `${p} (imported by ${from})`);
    expect(heavy).toEqual([]);
    // the walk itself works: commander is what the CLI does load
    expect(loaded.has('commander')).toBe(true);
  });

  it('loads no verb implementation before the verb runs (the kernel, the app layer, stores, sync, server)', () => {
    const modules = new Set<string>();
    packagesLoadedFrom(join(repo, 'src/tik/cli/main.ts'), modules);
    const eager = [...modules].filter((m) => /^src\/tik\/(kernel|server|sync|verify|effects|recur)\/|^src\/tik\/app\/tik-service|^src\/tik\/store\/(open-store|file\/file-store|sqlite|postgres\/postgres-store)/.test(m));
    expect(eager).toEqual([]);
    expect(modules.has('src/tik/cli/commands/status.ts')).toBe(true);
  });
});
