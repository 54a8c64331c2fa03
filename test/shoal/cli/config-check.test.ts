/**
 * `shoal config check [--connect]` and `shoal introspect` as processes (the compiled bin): exit
 * codes, every error printed with its key path and line, JSON shapes; and introspect's output is
 * config that binds.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goodConfig, makeCheckSources, type CheckFixture } from '../check/check-fixture.js';

const BIN = resolve('dist/src/shoal/cli/main.js');
const shoal = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, SHOAL_LOG_LEVEL: 'silent' } });

let fx: CheckFixture;
const file = (name: string, text: string): string => {
  const p = join(fx.dir, name);
  writeFileSync(p, text);
  return p;
};

beforeAll(async () => {
  fx = await makeCheckSources();
});
afterAll(() => fx?.cleanup());

/** The four findings of issue 14 in one config, each of which `config check` used to pass. */
const broken = (): string =>
  goodConfig()
    .replace("filter: \"region = current_setting('provisa.user_region')\"", "filter: \"regoin = current_setting('provisa.user_region')\"")
    .replace('{name: id, data_type: integer}\n      - {name: email', '{name: id, data_type: integer}\n      - {name: emial, data_type: varchar}\n      - {name: email')
    .replace('path: segments.csv', 'path: missing.csv')
    .replace('FROM sales.orders WHERE', 'FROM shop.main.ordrs WHERE')
    .replace('{name: shipped_at, data_type: timestamp', '{name: placed_at, data_type: timestamp');

describe('shoal config check', () => {
  it('a config that binds: exit 0 with and without --connect', () => {
    const cfg = file('good.yaml', goodConfig());
    const plain = shoal('config', 'check', '--config', cfg);
    expect(plain.status).toBe(0);
    expect(plain.stdout).toContain('ok — 4 source(s)');
    const connected = shoal('config', 'check', '--config', cfg, '--connect');
    expect(connected.stderr).toBe('');
    expect(connected.status).toBe(0);
    expect(connected.stdout).toContain('connected to 4 of 4 source(s)');
  }, 240_000); // cold CLI starts: slow on a loaded machine

  it('without --connect: view_sql over an unknown table fails (exit 1), a misspelt RLS column is a warning with its key path and line', () => {
    const r = shoal('config', 'check', '--config', file('broken.yaml', broken()));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error: tables\[5\]\.view_sql \(sales\.eu_orders\): table "shop\.main\.ordrs" does not exist among the registered tables \(line \d+\)$/m);
    expect(r.stderr).toMatch(/^warning: rls_rules\[0\]\.filter \(table orders, role analyst\): filter reads column "regoin".* \(line \d+\)\n {2}hint: did you mean "region"\?$/m);
  }, 240_000); // cold CLI starts: slow on a loaded machine

  it('with --connect: every finding is an error naming its key path (exit 1), all of them printed', () => {
    const r = shoal('config', 'check', '--config', file('broken.yaml', broken()), '--connect');
    expect(r.status).toBe(1);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(errors.map((l) => /^error: (\S+)/.exec(l)![1])).toEqual([
      'sources[1]',
      'tables[0].columns[3].mask_type',
      'tables[1].columns[1]',
      'rls_rules[0].filter',
      'tables[5].view_sql',
    ]);
    expect(r.stderr).toContain('error: tables[1].columns[1] (sales.customers.emial): column not found in source shop table main.customers; columns are: id, name, email, region (line');
    expect(r.stderr).toContain('missing.csv does not exist');
    expect(r.stderr).toMatch(/: 5 error\(s\); connected to 3 of 4 source\(s\)$/m);
  }, 240_000); // cold CLI starts: slow on a loaded machine

  it('--json prints {ok, errors, warnings, sources}', () => {
    const r = shoal('config', 'check', '--config', file('broken.yaml', broken()), '--connect', '--json');
    expect(r.status).toBe(1);
    const body = JSON.parse(r.stdout) as { ok: boolean; errors: { code: string; path: string; subject?: string; line?: number }[]; sources: { id: string; ok: boolean }[] };
    expect(body.ok).toBe(false);
    expect(body.errors.find((e) => e.code === 'CONFIG_RLS_UNKNOWN_COLUMN')).toMatchObject({ path: 'rls_rules[0].filter', subject: 'table orders, role analyst', line: expect.any(Number) });
    expect(body.sources).toEqual([
      { id: 'shop', ok: true, tables: 2 },
      { id: 'files', ok: false, tables: 0 },
      { id: 'rates', ok: true, tables: 1 },
      { id: 'board', ok: true, tables: 1 },
    ]);
  }, 240_000); // cold CLI starts: slow on a loaded machine
});

describe('shoal introspect', () => {
  const sourcesOnly = () => goodConfig().slice(0, goodConfig().indexOf('tables:'));

  it('prints a source\'s tables as config, with the config\'s type names', () => {
    const cfg = file('sources.yaml', sourcesOnly());
    const r = shoal('introspect', '--config', cfg, '--source', 'shop');
    expect(r.status).toBe(0);
    const out = parse(r.stdout) as { tables: { source_id: string; domain_id: string; table: string; columns: { name: string; data_type: string; is_primary_key?: boolean }[] }[] };
    expect(out.tables.map((t) => [t.source_id, t.domain_id, t.table])).toEqual([['shop', 'sales', 'customers'], ['shop', 'sales', 'orders']]);
    expect(out.tables[1]!.columns).toEqual([
      { name: 'id', data_type: 'bigint', is_primary_key: true },
      { name: 'region', data_type: 'varchar' },
      { name: 'amount', data_type: 'decimal(12,2)' },
      // SQLite TEXT stays text: what a mask or a comparison meets
      { name: 'placed_at', data_type: 'varchar' },
      { name: 'shipped_at', data_type: 'timestamp' },
    ]);
    const csv = parse(shoal('introspect', '--config', cfg, '--source', 'files').stdout) as { tables: { table: string; columns: unknown[] }[] };
    expect(csv.tables).toEqual([{ source_id: 'files', domain_id: 'sales', table: 'segments', columns: [{ name: 'id', data_type: 'bigint' }, { name: 'segment', data_type: 'varchar' }, { name: 'since', data_type: 'date' }] }]);
    const one = parse(shoal('introspect', '--config', cfg, '--source', 'board', '--table', 'facts').stdout) as { tables: { table: string; columns: { name: string; data_type: string }[] }[] };
    expect(one.tables.map((t) => t.table)).toEqual(['facts']);
    expect(one.tables[0]!.columns.find((c) => c.name === 'at')).toEqual({ name: 'at', data_type: 'timestamp' });
  }, 240_000); // cold CLI starts: slow on a loaded machine

  it('its output, pasted under tables:, is a config that binds at every source', () => {
    const tables = ['shop', 'files', 'rates', 'board'].flatMap((s) => {
      const r = shoal('introspect', '--config', file('sources.yaml', sourcesOnly()), '--source', s);
      expect(r.status).toBe(0);
      return (parse(r.stdout) as { tables: unknown[] }).tables;
    });
    const cfg = file('introspected.yaml', `${sourcesOnly()}${stringify({ tables, roles: [{ id: 'admin', capabilities: ['admin'], domain_access: ['*'] }] })}`);
    const r = shoal('config', 'check', '--config', cfg, '--connect');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 240_000); // cold CLI starts: slow on a loaded machine

  it('an unknown source or table is an error (exit 1) with a hint; a missing --source is a usage error (exit 2)', () => {
    const cfg = file('sources.yaml', sourcesOnly());
    const unknown = shoal('introspect', '--config', cfg, '--source', 'shpo');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('CONFIG_UNKNOWN_SOURCE: the config declares no source "shpo"');
    expect(unknown.stderr).toContain('did you mean "shop"?');
    const table = shoal('introspect', '--config', cfg, '--source', 'shop', '--table', 'nope');
    expect(table.status).toBe(1);
    expect(table.stderr).toContain('SOURCE_TABLE_NOT_FOUND');
    expect(shoal('introspect', '--config', cfg).status).toBe(2);
  }, 240_000); // cold CLI starts: slow on a loaded machine
});
