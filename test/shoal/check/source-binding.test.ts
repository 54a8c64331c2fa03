/**
 * `shoal config check --connect` against real sources (SQLite, CSV, Parquet, a tik store): each
 * finding of issue 14 that `config check` used to pass is an error naming its key path and what it
 * names, every error is reported, and a config that binds gives none.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindAgainstSources } from '../../../src/shoal/check/source-binding.js';
import { checkConfig } from '../../../src/shoal/check/load-config.js';
import type { ConfigIssue } from '../../../src/shoal/config/config-issue.js';
import { formatIssue } from '../../../src/shoal/config/config-issue.js';
import { goodConfig, makeCheckSources, type CheckFixture } from './check-fixture.js';

let fx: CheckFixture;
beforeAll(async () => {
  fx = await makeCheckSources();
});
afterAll(() => fx?.cleanup());

async function connectCheck(text: string): Promise<{ errors: readonly ConfigIssue[]; warnings: readonly ConfigIssue[] }> {
  const loaded = checkConfig({ text }, {});
  expect(loaded.errors).toEqual([]);
  return bindAgainstSources(loaded.config!, { baseDir: fx.dir, env: {} });
}

describe('config check --connect', () => {
  it('a config whose every table, column, mask and rule binds has no error and no warning', async () => {
    const r = await connectCheck(goodConfig());
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
  });

  it('an RLS filter on a misspelt column is an error at rls_rules[i].filter naming the rule, the table and the columns it has', async () => {
    const r = await connectCheck(goodConfig().replace("filter: \"region = current_setting('provisa.user_region')\"", "filter: \"regoin = current_setting('provisa.user_region')\""));
    expect(r.errors).toHaveLength(1);
    const e = r.errors[0]!;
    expect(e).toMatchObject({ code: 'CONFIG_RLS_UNKNOWN_COLUMN', path: 'rls_rules[0].filter', subject: 'table orders, role analyst', hint: 'did you mean "region"?' });
    expect(formatIssue(e)).toBe(
      'rls_rules[0].filter (table orders, role analyst): filter reads column "regoin", not found in source shop table main.orders (sales.orders); columns are: id, region, amount, placed_at, shipped_at',
    );
  });

  it('a registered column the source lacks is an error at tables[i].columns[j] listing the columns the source has', async () => {
    const r = await connectCheck(goodConfig().replace('{name: amount, data_type: "decimal(12,2)"}\n      - {name: shipped_at', '{name: amonut, data_type: "decimal(12,2)"}\n      - {name: shipped_at'));
    expect(r.errors.map(formatIssue)).toEqual([
      'tables[0].columns[2] (sales.orders.amonut): column not found in source shop table main.orders; columns are: id, region, amount, placed_at, shipped_at',
      // and the view over it no longer binds either: every error is reported
      'tables[5].view_sql (sales.eu_orders): column "amount" does not exist',
    ]);
    expect(r.errors[0]!.hint).toBe('did you mean "amount"?');
  });

  it('a missing CSV file is an error at sources[i]', async () => {
    const r = await connectCheck(goodConfig().replace('path: segments.csv', 'path: segmnts.csv'));
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ code: 'CONFIG_SOURCE_UNREACHABLE', path: 'sources[1]', subject: 'source files' });
    expect(r.errors[0]!.message).toContain('segmnts.csv does not exist');
  });

  it('a truncate mask on a SQLite TEXT timestamp is an error at its mask_type', async () => {
    const r = await connectCheck(goodConfig().replace('{name: shipped_at, data_type: timestamp', '{name: placed_at, data_type: timestamp'));
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ code: 'CONFIG_MASK_TYPE', path: 'tables[0].columns[3].mask_type', subject: 'sales.orders.placed_at' });
    expect(r.errors[0]!.message).toContain('source shop has TEXT');
  });

  it('a regex mask on a number is an error, and a declared type the source contradicts is a warning', async () => {
    const r = await connectCheck(
      goodConfig()
        .replace('{name: email, data_type: varchar, mask_type', '{name: id, data_type: varchar, mask_type')
        .replace('- {name: id, data_type: integer}\n      - {name: id, data_type: varchar', '- {name: name, data_type: integer}\n      - {name: id, data_type: varchar'),
    );
    expect(r.errors.map((e) => [e.code, e.path])).toEqual([['CONFIG_MASK_TYPE', 'tables[1].columns[1].mask_type']]);
    expect(r.warnings.map((e) => [e.code, e.path])).toEqual([['CONFIG_COLUMN_TYPE_MISMATCH', 'tables[1].columns[0].data_type']]);
  });

  it('view_sql over an unknown table is an error at tables[i].view_sql', async () => {
    const r = await connectCheck(goodConfig().replace('FROM sales.orders WHERE', 'FROM sales.ordres WHERE'));
    expect(r.errors.map((e) => [e.code, e.path])).toEqual([['CONFIG_VIEW_SQL_INVALID', 'tables[5].view_sql']]);
    expect(r.errors[0]!.message).toContain('"sales.ordres"');
  });

  it('a table the source lacks is an error naming the tables it has; every error is reported, not only the first', async () => {
    const r = await connectCheck(
      goodConfig()
        .replace('table: customers\n', 'table: custmers\n    alias: customers\n')
        .replace('table: tickets', 'table: tikets')
        .replace("filter: \"region = current_setting('provisa.user_region')\"", "filter: \"regoin = current_setting('provisa.user_region')\"")
        .replace('path: rates.parquet', 'path: nope.parquet'),
    );
    expect(r.errors.map((e) => [e.code, e.path]).sort()).toEqual(
      [
        ['CONFIG_SOURCE_UNREACHABLE', 'sources[2]'],
        ['CONFIG_TABLE_NOT_IN_SOURCE', 'tables[1].table'],
        ['CONFIG_TABLE_NOT_IN_SOURCE', 'tables[4].table'],
        ['CONFIG_RLS_UNKNOWN_COLUMN', 'rls_rules[0].filter'],
        // the rule on customers cannot be bound: its table is missing (reported once, as the table)
      ].sort(),
    );
    expect(r.errors.find((e) => e.path === 'tables[1].table')!.message).toBe('table main.custmers not found in source shop; tables in main are: customers, orders');
    expect(r.errors.find((e) => e.path === 'tables[4].table')!.hint).toBe('did you mean "tickets"?');
  });

  it('a directory source: a missing <table>.csv is an error at that table, and the other tables are still bound', async () => {
    mkdirSync(join(fx.dir, 'csvdir'), { recursive: true });
    writeFileSync(join(fx.dir, 'csvdir', 'kinds.csv'), 'code,label\na,Alpha\n');
    const text = goodConfig()
      .replace('  - {id: board, type: tik, path: board}', '  - {id: board, type: tik, path: board}\n  - {id: dir, type: csv, path: csvdir}')
      .replace('roles:', `  - {source_id: dir, domain_id: sales, table: kinds, columns: [{name: code, data_type: varchar}, {name: lable, data_type: varchar}]}
  - {source_id: dir, domain_id: sales, table: sizes, columns: [{name: code, data_type: varchar}]}
roles:`);
    const r = await connectCheck(text);
    expect(r.errors.map((e) => [e.code, e.path])).toEqual([
      ['CONFIG_COLUMN_NOT_IN_SOURCE', 'tables[6].columns[1]'],
      ['CONFIG_TABLE_NOT_IN_SOURCE', 'tables[7].table'],
    ]);
    expect(r.errors[1]!.message).toContain(join('csvdir', 'sizes.csv'));
  });

  it('a PostgreSQL source that cannot be reached is an error at its sources entry, and the rest is still checked', async () => {
    const text = goodConfig()
      .replace('  - {id: board, type: tik, path: board}', '  - {id: board, type: tik, path: board}\n  - {id: pg, type: postgresql, host: 127.0.0.1, port: 1, database: x, username: u}')
      .replace('{name: amount, data_type: "decimal(12,2)"}\n      - {name: shipped_at', '{name: amonut, data_type: "decimal(12,2)"}\n      - {name: shipped_at');
    const r = await connectCheck(text);
    expect(r.errors.map((e) => [e.code, e.path])).toEqual([
      ['CONFIG_SOURCE_UNREACHABLE', 'sources[4]'],
      ['CONFIG_COLUMN_NOT_IN_SOURCE', 'tables[0].columns[2]'],
      ['CONFIG_VIEW_SQL_INVALID', 'tables[5].view_sql'],
    ]);
  }, 30_000);
});
