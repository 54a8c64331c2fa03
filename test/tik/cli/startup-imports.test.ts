import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * CLI start-up cost (issue 18): `tik --help` loads a handful of modules and no package at all (not
 * even commander), and a verb on a file store loads the program and that verb, never the server
 * (fastify, zod) nor a SQL driver (pg, better-sqlite3); they are imported by the code that needs
 * them. Checked on the static import graph of the sources, so it is exact and not timed.
 */
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const cli = join(repo, 'src/tik/cli');
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

/** What loading `entries` loads: the repository's modules, and the packages and builtins with the module that imports each. */
function loadedFrom(...entries: string[]): { modules: Set<string>; packages: Map<string, string> } {
  const modules = new Set<string>();
  const packages = new Map<string, string>();
  const stack = [...entries];
  while (stack.length > 0) {
    const file = stack.pop()!;
    const name = file.slice(repo.length + 1);
    if (modules.has(name)) continue;
    modules.add(name);
    for (const spec of staticSpecifiers(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) stack.push(join(dirname(file), spec.replace(/\.js$/, '.ts')));
      else if (!packages.has(spec)) packages.set(spec, name);
    }
  }
  return { modules, packages };
}

const commandModules = readdirSync(join(cli, 'commands'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(cli, 'commands', f));

describe('tik CLI start-up', () => {
  it('prints the root help from a handful of modules, without commander, node:crypto or edn', () => {
    const { modules, packages } = loadedFrom(join(cli, 'main.ts'));
    expect([...packages].map(([p, from]) => `${p} (imported by ${from})`)).toEqual([]);
    // main.ts, the help renderer, the root command and the verb table: nothing else
    expect([...modules].sort()).toEqual(['src/tik/cli/main.ts', 'src/tik/cli/root-command.ts', 'src/tik/cli/root-help.ts', 'src/tik/cli/verbs.ts']);
  });

  it('imports every command module from the verb table only, when its verb runs', () => {
    const table = readFileSync(join(cli, 'verbs.ts'), 'utf8');
    for (const file of commandModules) expect(table, file).toContain(`await import('./commands/${file.slice(cli.length + '/commands/'.length).replace(/\.ts$/, '.js')}')`);
    const { modules } = loadedFrom(join(cli, 'run.ts'));
    expect([...modules].filter((m) => m.startsWith('src/tik/cli/commands/'))).toEqual([]);
  });

  it('starts a verb without node:crypto or the EDN reader: the verbs that need them import them', () => {
    const { modules, packages } = loadedFrom(join(cli, 'run.ts'), join(cli, 'io.ts'));
    expect(packages.has('node:crypto')).toBe(false);
    expect([...modules].filter((m) => m.startsWith('src/tik/edn/'))).toEqual([]);
    for (const command of commandModules) {
      expect([...loadedFrom(join(cli, 'run.ts'), command).modules].filter((m) => m.startsWith('src/tik/edn/')), command).toEqual([]);
    }
  });

  it('runs a verb without the server or a SQL driver until the verb needs it', () => {
    for (const command of commandModules) {
      const { packages } = loadedFrom(join(cli, 'run.ts'), command);
      const heavy = [...packages].filter(([p]) => HEAVY.includes(p)).map(([p, from]) => `${p} (imported by ${from})`);
      expect(heavy, command).toEqual([]);
      // the walk itself works: commander is what the CLI does load
      expect(packages.has('commander')).toBe(true);
    }
  });

  it('loads no verb implementation before the verb runs (the kernel, the app layer, stores, sync, server)', () => {
    for (const command of commandModules) {
      const { modules } = loadedFrom(join(cli, 'run.ts'), command);
      const eager = [...modules].filter((m) => /^src\/tik\/(kernel|server|sync|verify|effects|recur)\/|^src\/tik\/app\/tik-service|^src\/tik\/store\/(open-store|file\/file-store|sqlite|postgres\/postgres-store)/.test(m));
      expect(eager, command).toEqual([]);
      expect(modules.has('src/tik/cli/program.ts')).toBe(true);
    }
  });
});
