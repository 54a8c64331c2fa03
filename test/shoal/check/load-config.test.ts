import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { formatIssue, type ConfigIssue } from '../../../src/shoal/config/config-issue.js';
import { checkConfig, loadConfig } from '../../../src/shoal/check/load-config.js';
import { catalogOf, findTable, physicalName, qualifiedName, rlsFiltersFor, tableId } from '../../../src/shoal/config/model.js';
import { ShoalError } from '../../../src/shoal/errors.js';
import { catalogArbitrary } from '../registry/catalog-arbitrary.js';
import { FLEET_ENV, fleetExampleGovernedYaml, fleetExampleWithoutMvYaml, fleetExampleYaml } from '../config/fixtures.js';

/** A config with one error planted; `lineOf` finds the line a marker text is on. */
function lineOf(text: string, marker: string): number {
  const i = text.indexOf(marker);
  if (i < 0) throw new Error(`marker ${marker} not in text`);
  return text.slice(0, i).split('\n').length;
}

function only(issues: readonly ConfigIssue[], code: string): ConfigIssue {
  const matching = issues.filter((i) => i.code === code);
  expect(matching, JSON.stringify(issues, null, 1)).toHaveLength(1);
  return matching[0]!;
}

const BASE = `
domains:
  - id: sales
sources:
  - id: pg-main
    type: postgresql
    host: localhost
    password: \${env:PG_PASSWORD}
roles:
  - id: admin
    capabilities: [admin, query_development]
    domain_access: ["*"]
  - id: analyst
    capabilities: [query_development]
    domain_access: [sales]
tables:
  - source_id: pg-main
    domain_id: sales
    schema: public
    table: orders
    columns:
      - name: id
        data_type: integer
      - name: email
        data_type: varchar
        unmasked_to: [admin]
        mask_type: regex
        mask_pattern: "^(.{2}).*$"
        mask_replace: "$1***"
rls_rules:
  - table_id: orders
    role_id: analyst
    filter: "id > 0"
`;

describe('the federation-fleet §7 example', () => {
  it('loads without its MV table, with no errors or warnings', () => {
    const r = checkConfig({ text: fleetExampleWithoutMvYaml() }, FLEET_ENV);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(r.ok).toBe(true);
    const c = r.config!;
    expect(c.sources.map((s) => s.id)).toEqual(['sales-pg', 'segments-csv']);
    expect(c.tables.map(qualifiedName)).toEqual(['sales.orders', 'sales.currencies', 'sales.customer_segments']);
    expect(c.tables.map(physicalName)).toEqual(['sales_pg.public.orders', 'sales_pg.public.currencies', 'segments_csv.default.customer_segments']);
    expect(c.stateful).toMatchObject({
      federation_engine: 'duckdb',
      materialize_store_url: FLEET_ENV.PROVISA_MATERIALIZE_URL,
      control_plane: { tenant_url: FLEET_ENV.TENANT_DATABASE_URL, platform_url: FLEET_ENV.PLATFORM_DATABASE_URL },
      cache: { enabled: true, redis_url: FLEET_ENV.REDIS_URL, default_ttl: 300 },
      hot_tables: { auto_threshold: 1000, refresh_interval: 300, max_rows: 1000, max_bytes: 10485760 },
    });
    const orders = findTable(c, 'orders')!;
    expect(orders.watermark_column).toBe('updated_at');
    const email = orders.columns.find((x) => x.name === 'email')!;
    expect(email).toMatchObject({ mask_type: 'regex', mask_pattern: '^(.{2}).*(@.*)$', mask_replace: '$1***$2', unmasked_to: ['admin'] });
    expect(orders.columns.find((x) => x.name === 'amount')).toMatchObject({ mask_type: 'constant', mask_value: '0' });
    expect(findTable(c, 'currencies')!.hot).toBe(true);
    expect(c.relationships[0]).toMatchObject({ source_table_id: 'orders', target_table_id: 'currencies', cardinality: 'many-to-one' });
    expect(rlsFiltersFor(c, orders, 'analyst')).toEqual(["region = current_setting('provisa.user_region')"]);
    expect(rlsFiltersFor(c, orders, 'admin')).toEqual([]);
  });

  it('hot_tables.revalidate_interval defaults to 1 s, takes fractional seconds, and refuses 0', () => {
    const base = fleetExampleWithoutMvYaml();
    expect(checkConfig({ text: base }, FLEET_ENV).config!.stateful.hot_tables.revalidate_interval).toBe(1);
    const quarter = checkConfig({ text: 'hot_tables: {revalidate_interval: 0.25}\n' }, FLEET_ENV);
    expect(quarter.errors).toEqual([]);
    expect(quarter.config!.stateful.hot_tables.revalidate_interval).toBe(0.25);
    expect(checkConfig({ text: 'hot_tables: {revalidate_interval: 0}\n' }, FLEET_ENV).ok).toBe(false);
  });

  it('keeps the source password as an unresolved ${env:…} reference even when the variable is set', () => {
    const c = loadConfig({ text: fleetExampleGovernedYaml() }, { ...FLEET_ENV, SALES_PG_PASSWORD: 'hunter2' }).config;
    expect(c.sources[0]!.password).toBe('${env:SALES_PG_PASSWORD}');
    expect(JSON.stringify(c)).not.toContain('hunter2');
  });

  it('as written, its MV launders the analyst\'s rows: refused, naming the MV, orders and the role', () => {
    const r = checkConfig({ text: fleetExampleYaml() }, FLEET_ENV);
    expect(r.ok).toBe(false);
    expect(r.errors).toEqual([expect.objectContaining({ code: 'CONFIG_VIEW_LAUNDERS_ROWS', path: 'tables[3].view_sql', line: expect.any(Number) })]);
    expect(r.errors[0]!.message).toMatch(/sales\.revenue_by_segment .*sales\.orders \(RLS, masks\).*: analyst$/);
  });

  it('loads with its MV table too (given an RLS rule of its own): a __derived__ view with view_sql', () => {
    const c = loadConfig({ text: fleetExampleGovernedYaml() }, FLEET_ENV).config;
    const mv = findTable(c, 'revenue_by_segment')!;
    expect(mv).toMatchObject({ source_id: '__derived__', schema: 'views', materialize: true, mv_refresh_interval: 600, mv_consistency: 'distributed' });
    expect(mv.view_sql).toContain('"sales_pg"."public"."orders"');
  });

  it('names each unset environment variable with its key path and line', () => {
    const text = fleetExampleWithoutMvYaml();
    const r = checkConfig({ text }, {});
    expect(r.ok).toBe(false);
    expect(r.errors.map(formatIssue)).toEqual([
      `materialize_store_url: environment variable PROVISA_MATERIALIZE_URL is not set (line ${lineOf(text, 'materialize_store_url:')})`,
      `control_plane.tenant_url: environment variable TENANT_DATABASE_URL is not set (line ${lineOf(text, 'tenant_url:')})`,
      `control_plane.platform_url: environment variable PLATFORM_DATABASE_URL is not set (line ${lineOf(text, 'platform_url:')})`,
      `cache.redis_url: environment variable REDIS_URL is not set (line ${lineOf(text, 'cache:')})`,
      `sources[0].host: environment variable SALES_PG_HOST is not set (line ${lineOf(text, 'host:')})`,
    ]);
    expect(r.errors.every((e) => e.code === 'CONFIG_ENV_MISSING' && e.hint?.includes(':-'))).toBe(true);
  });

  it('reads a file path and reports a missing file as an error, not a crash', () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-config-'));
    try {
      const path = join(dir, 'provisa.yaml');
      writeFileSync(path, fleetExampleWithoutMvYaml());
      expect(loadConfig(path, FLEET_ENV).config.tables).toHaveLength(3);
      expect(loadConfig({ path }, FLEET_ENV).config.tables).toHaveLength(3);
      const missing = checkConfig(join(dir, 'nope.yaml'), FLEET_ENV);
      expect(missing.ok).toBe(false);
      expect(missing.errors[0]).toMatchObject({ code: 'CONFIG_FILE', message: expect.stringContaining('does not exist') });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('validation errors name the key path and the line', () => {
  const env = { PG_PASSWORD: 'x' };

  it('the base config is valid', () => {
    const r = checkConfig({ text: BASE }, env);
    expect(r.errors).toEqual([]);
    expect(r.ok).toBe(true);
  });

  it('a bad enum value: tables[0].columns[1].mask_type: expected regex|constant|truncate (line N)', () => {
    const text = BASE.replace('mask_type: regex', 'mask_type: scramble');
    const e = only(checkConfig({ text }, env).errors, 'CONFIG_TYPE');
    expect(formatIssue(e)).toBe(`tables[0].columns[1].mask_type: expected regex|constant|truncate (line ${lineOf(text, 'mask_type: scramble')})`);
  });

  it('an enum typo gets a did-you-mean hint; an upstream-only source type is reported as unsupported', () => {
    const typo = only(checkConfig({ text: BASE.replace('mask_type: regex', 'mask_type: regx') }, env).errors, 'CONFIG_TYPE');
    expect(typo.hint).toBe('did you mean "regex"?');
    const text = BASE.replace('type: postgresql', 'type: mongodb');
    const e = only(checkConfig({ text }, env).errors, 'CONFIG_UNSUPPORTED_SOURCE_TYPE');
    expect(e).toMatchObject({ path: 'sources[0].type', line: lineOf(text, 'type: mongodb') });
    expect(e.message).toContain('upstream provisa');
  });

  it('a wrong type', () => {
    const text = BASE.replace('schema: public', 'schema: [public]');
    const e = only(checkConfig({ text }, env).errors, 'CONFIG_TYPE');
    expect(formatIssue(e)).toBe(`tables[0].schema: expected string, got a list (line ${lineOf(text, 'schema: [public]')})`);
  });

  it('a missing required field points at the entry that lacks it', () => {
    const text = BASE.replace('    type: postgresql\n', '');
    const e = only(checkConfig({ text }, env).errors, 'CONFIG_MISSING_FIELD');
    expect(e.path).toBe('sources[0].type');
    expect(e.message).toContain('required');
    expect(e.line).toBe(lineOf(text, '- id: pg-main'));
  });

  it('a YAML syntax error has a line and column', () => {
    const text = BASE.replace('    schema: public', '    schema: public\n   bad: [');
    const r = checkConfig({ text }, env);
    expect(r.ok).toBe(false);
    expect(r.errors[0]!.code).toBe('CONFIG_YAML');
    expect(r.errors[0]!.line).toBeGreaterThan(1);
    expect(r.errors[0]!.column).toBeGreaterThanOrEqual(1);
  });

  it('a duplicate key is a YAML error', () => {
    const text = BASE.replace('    schema: public', '    schema: public\n    schema: private');
    const r = checkConfig({ text }, env);
    expect(r.errors[0]).toMatchObject({ code: 'CONFIG_YAML', line: lineOf(text, 'schema: private') });
  });

  it('a file saved with a BOM and CRLF line endings reports the same lines', () => {
    const text = '\uFEFFdomains:\r\n  - id: sales\r\nroles:\r\n  - {id: a, capabilities: [nope]}\r\n';
    const e = only(checkConfig({ text }, env).errors, 'CONFIG_TYPE');
    expect(e).toMatchObject({ path: 'roles[0].capabilities[0]', line: 4 });
  });

  it('a document that is not a mapping', () => {
    const r = checkConfig({ text: '- just\n- a list\n' }, env);
    expect(r.errors[0]).toMatchObject({ code: 'CONFIG_TYPE', path: '' });
  });

  it('an empty document is an empty catalog on defaults', () => {
    const r = checkConfig({ text: '\n# nothing\n' }, env);
    expect(r.ok).toBe(true);
    expect(r.config!.tables).toEqual([]);
    expect(r.config!.stateful.federation_engine).toBe('duckdb');
  });

  it.each([
    ['table → source', "source_id: pg-main\n    domain_id", 'source_id: pg-mian\n    domain_id', 'CONFIG_UNKNOWN_SOURCE', 'tables[0].source_id', 'did you mean "pg-main"?'],
    ['table → domain', 'domain_id: sales\n    schema', 'domain_id: marketing\n    schema', 'CONFIG_UNKNOWN_DOMAIN', 'tables[0].domain_id', undefined],
    ['rls → table', 'table_id: orders', 'table_id: ordres', 'CONFIG_UNKNOWN_TABLE', 'rls_rules[0].table_id', 'did you mean "orders"?'],
    ['rls → role', 'role_id: analyst', 'role_id: analyts', 'CONFIG_UNKNOWN_ROLE', 'rls_rules[0].role_id', 'did you mean "analyst"?'],
  ])('a broken cross reference (%s)', (_, from, to, code, path, hint) => {
    const text = BASE.replace(from, to);
    const e = only(checkConfig({ text }, env).errors, code);
    expect(e.path).toBe(path);
    expect(e.line).toBe(lineOf(text, to.split('\n')[0]!));
    if (hint) expect(e.hint).toBe(hint);
  });

  it('relationship endpoints must be tables and their columns', () => {
    const text = `${BASE}relationships:
  - {id: r1, source_table_id: orders, target_table_id: customers, source_column: id, target_column: id, cardinality: many-to-one}
  - {id: r2, source_table_id: orders, target_table_id: orders, source_column: idd, target_column: id, cardinality: one-to-many}
`;
    const r = checkConfig({ text }, env);
    expect(r.errors.map((e) => [e.code, e.path, e.line])).toEqual([
      ['CONFIG_UNKNOWN_TABLE', 'relationships[0].target_table_id', lineOf(text, '{id: r1')],
      ['CONFIG_UNKNOWN_COLUMN', 'relationships[1].source_column', lineOf(text, '{id: r2')],
    ]);
    expect(r.errors[1]!.hint).toBe('did you mean "id"?');
  });

  it('duplicate ids are errors that point at the second occurrence', () => {
    const text = BASE.replace('  - id: analyst', '  - id: admin');
    const e = r0(checkConfig({ text }, env).errors.filter((x) => x.code === 'CONFIG_DUPLICATE_ID'));
    expect(e.path).toBe('roles[1].id');
    expect(e.message).toContain('first at roles[0]');
    expect(e.line).toBe(lineOf(text, '  - id: admin\n    capabilities: [query'));
  });

  it('two tables with the same id (alias or name) are a duplicate', () => {
    const text = BASE.replace('rls_rules:', `  - {source_id: pg-main, domain_id: sales, schema: archive, table: orders}
rls_rules:`);
    const e = only(checkConfig({ text }, env).errors, 'CONFIG_DUPLICATE_ID');
    expect(e.path).toBe('tables[1].table');
  });

  it.each([
    ['regex without a pattern', '        mask_pattern: "^(.{2}).*$"\n', '', 'CONFIG_MISSING_FIELD', 'mask_pattern'],
    ['regex with an invalid pattern', '"^(.{2}).*$"', '"^(.{2}"', 'CONFIG_INVALID_REGEX', 'mask_pattern'],
    ['regex not anchored at both ends (it would pass unmatched values through)', '"^(.{2}).*$"', '"^[^@]+"', 'CONFIG_INVALID_REGEX', 'mask_pattern'],
    ['regex with alternation (longest vs first match differs per route)', '"^(.{2}).*$"', '"^(a|ab).*$"', 'CONFIG_INVALID_REGEX', 'mask_pattern'],
    ['regex with a class shorthand (unicode meaning differs per route)', '"^(.{2}).*$"', '"^(\\\\w{2}).*$"', 'CONFIG_INVALID_REGEX', 'mask_pattern'],
    ['regex with a lazy quantifier', '"^(.{2}).*$"', '"^(.{2}).*?$"', 'CONFIG_INVALID_REGEX', 'mask_pattern'],
    ['replacement naming a missing group', '"$1***"', '"$1***$2"', 'CONFIG_INVALID_REGEX', 'mask_replace'],
    ['replacement with a backslash', '"$1***"', '"\\\\1***"', 'CONFIG_INVALID_REGEX', 'mask_replace'],
    ['regex on a non-string column', 'data_type: varchar', 'data_type: integer', 'CONFIG_INVALID_COMBINATION', 'mask_type'],
    ['truncate without a precision', 'mask_type: regex\n        mask_pattern: "^(.{2}).*$"\n        mask_replace: "$1***"', 'mask_type: truncate', 'CONFIG_MISSING_FIELD', 'mask_precision'],
    ['constant without a value', 'mask_type: regex\n        mask_pattern: "^(.{2}).*$"\n        mask_replace: "$1***"', 'mask_type: constant', 'CONFIG_MISSING_FIELD', 'mask_value'],
    ['a mask field without mask_type', 'mask_type: regex\n        mask_pattern', 'mask_pattern', 'CONFIG_INVALID_COMBINATION', 'mask_pattern'],
  ])('masking combinations: %s', (_, from, to, code, key) => {
    const text = BASE.replace(from, to);
    const errors = checkConfig({ text }, env).errors;
    const e = errors.find((x) => x.code === code);
    expect(e, JSON.stringify(errors)).toBeDefined();
    expect(e!.path).toBe(`tables[0].columns[1].${key}`);
    expect(e!.line).toBeGreaterThanOrEqual(lineOf(text, '- name: email'));
  });

  it('truncate on a timestamp and constant null are valid', () => {
    const text = BASE.replace(
      'mask_type: regex\n        mask_pattern: "^(.{2}).*$"\n        mask_replace: "$1***"',
      'mask_type: constant\n        mask_value: null',
    ).replace('      - name: id\n        data_type: integer', '      - {name: created, data_type: timestamp, mask_type: truncate, mask_precision: month}');
    const r = checkConfig({ text }, env);
    expect(r.errors).toEqual([]);
    const cols = r.config!.tables[0]!.columns;
    expect(cols[0]).toMatchObject({ mask_type: 'truncate', mask_precision: 'month' });
    expect(cols[1]!.mask_value).toBeNull();
  });

  it('a role inheritance cycle and an unknown parent are errors', () => {
    const cyc = BASE.replace('    domain_access: ["*"]', '    domain_access: ["*"]\n    parent_role_id: analyst').replace(
      '    domain_access: [sales]',
      '    domain_access: [sales]\n    parent_role_id: admin',
    );
    const errors = checkConfig({ text: cyc }, env).errors;
    expect(errors.filter((e) => e.code === 'CONFIG_ROLE_CYCLE').map((e) => e.path)).toEqual(['roles[0].parent_role_id', 'roles[1].parent_role_id']);
    const unknown = BASE.replace('    domain_access: [sales]', '    domain_access: [sales]\n    parent_role_id: root');
    expect(only(checkConfig({ text: unknown }, env).errors, 'CONFIG_UNKNOWN_ROLE').path).toBe('roles[1].parent_role_id');
  });

  it('loadConfig throws one ShoalError listing every error with its line', () => {
    const text = BASE.replace('mask_type: regex', 'mask_type: scramble').replace('role_id: analyst', 'role_id: nobody');
    let thrown: unknown;
    try {
      loadConfig({ text, name: 'bad.yaml' }, env);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ShoalError);
    const e = thrown as ShoalError;
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.where).toBe('bad.yaml');
    expect(e.message).toContain(`tables[0].columns[1].mask_type: expected regex|constant|truncate (line ${lineOf(text, 'scramble')})`);
    expect(e.position).toEqual({ line: lineOf(text, 'scramble'), column: 9 });
    expect(e.describe()).not.toContain('    at ');
  });
});

describe('unknown keys', () => {
  const env = { PG_PASSWORD: 'x' };

  it("upstream keys shoal doesn't support are warnings, and the config still loads", () => {
    const text = `server: {port: 8000}\nwarm_tables: {query_threshold: 100}\n${BASE.replace('    table: orders', '    table: orders\n    mv_persist: replace')}`;
    const r = checkConfig({ text }, env);
    expect(r.ok).toBe(true);
    expect(r.warnings.map((w) => [w.code, w.path, w.line])).toEqual([
      ['CONFIG_UNSUPPORTED_KEY', 'server.port', 1],
      ['CONFIG_UNSUPPORTED_KEY', 'warm_tables', 2],
      ['CONFIG_UNSUPPORTED_KEY', 'tables[0].mv_persist', lineOf(text, 'mv_persist')],
    ]);
    expect(r.warnings[0]!.message).toContain('not support');
  });

  it('a typo is an error with a did-you-mean suggestion', () => {
    const text = BASE.replace('mask_pattern:', 'mask_patern:').replace('domains:', 'domain:');
    const r = checkConfig({ text }, env);
    expect(r.ok).toBe(false);
    const typos = r.errors.filter((e) => e.code === 'CONFIG_UNKNOWN_KEY');
    expect(typos.map((e) => [e.path, e.hint, e.line])).toEqual([
      ['domain', 'did you mean "domains"?', lineOf(text, 'domain:')],
      ['tables[0].columns[1].mask_patern', 'did you mean "mask_pattern"?', lineOf(text, 'mask_patern')],
    ]);
  });

  it('a truly unknown key with no near match lists the known keys', () => {
    const e = only(checkConfig({ text: `${BASE}frobnicate: 1\n` }, env).errors, 'CONFIG_UNKNOWN_KEY');
    expect(e.path).toBe('frobnicate');
    expect(e.hint).toContain('known keys: ');
  });
});

describe('secrets', () => {
  it('a literal password is an error with a hint (the registry never stores plain text)', () => {
    const text = BASE.replace('${env:PG_PASSWORD}', 'hunter2');
    const e = only(checkConfig({ text }, {}).errors, 'CONFIG_PLAINTEXT_SECRET');
    expect(e.path).toBe('sources[0].password');
    expect(e.line).toBe(lineOf(text, 'hunter2'));
    expect(e.hint).toContain('${env:');
    expect(JSON.stringify(e)).not.toContain('hunter2');
  });

  it('a password reference with a default is refused (the default would be plain text)', () => {
    const text = BASE.replace('${env:PG_PASSWORD}', '${env:PG_PASSWORD:-letmein}');
    expect(only(checkConfig({ text }, {}).errors, 'CONFIG_PLAINTEXT_SECRET').path).toBe('sources[0].password');
  });

  it('an unset password variable is not an error at load (it is resolved at connect time)', () => {
    expect(checkConfig({ text: BASE }, {}).ok).toBe(true);
  });
});

describe('env interpolation in the config', () => {
  it('resolves embedded references, defaults, and coerces numbers after interpolation', () => {
    const text = `control_plane:\n  tenant_url: postgresql://\${env:PGUSER:-shoal}@\${env:PGHOST}/registry\n  pool_max: \${env:POOL:-7}\n${BASE.replace('host: localhost', 'host: ${env:PGHOST}\n    port: ${env:PGPORT:-5432}')}`;
    const c = loadConfig({ text }, { PGHOST: 'db.internal' }).config;
    expect(c.stateful.control_plane.tenant_url).toBe('postgresql://shoal@db.internal/registry');
    expect(c.stateful.control_plane.pool_max).toBe(7);
    expect(c.sources[0]).toMatchObject({ host: 'db.internal', port: 5432 });
  });

  it('an unset variable in a number field is one error (not also a type error), and other errors are still found', () => {
    const text = BASE.replace('host: localhost', 'host: localhost\n    port: ${env:PGPORT}').replace('role_id: analyst', 'role_id: analyts');
    const r = checkConfig({ text }, {});
    expect(r.errors.map((e) => [e.code, e.path])).toEqual([
      ['CONFIG_ENV_MISSING', 'sources[0].port'],
      ['CONFIG_UNKNOWN_ROLE', 'rls_rules[0].role_id'],
    ]);
  });

  it('a control-plane URL shoal cannot open is an error at load, with its line (and no password)', () => {
    const text = `control_plane:\n  tenant_url: mysql://u:pw@h/db\n  platform_url: sqlite:////var/lib/p.db\n${BASE}`;
    const e = only(checkConfig({ text }, {}).errors, 'CONFIG_URL');
    expect(e).toMatchObject({ path: 'control_plane.tenant_url', line: 2 });
    expect(e.message).not.toContain(':pw@');
  });

  it('a malformed reference is an error naming the key', () => {
    const text = BASE.replace('host: localhost', 'host: ${env:}');
    const e = only(checkConfig({ text }, {}).errors, 'CONFIG_ENV_MALFORMED');
    expect(e.path).toBe('sources[0].host');
  });

  it('works inside flow mappings, where ${ and } are YAML indicators', () => {
    const text = `cache: {enabled: true, redis_url: \${env:REDIS_URL}, default_ttl: \${env:TTL:-60}}\n`;
    const c = loadConfig({ text }, { REDIS_URL: 'redis://r:6379' }).config;
    expect(c.stateful.cache).toEqual({ enabled: true, redis_url: 'redis://r:6379', default_ttl: 60 });
  });
});

describe('naming', () => {
  it('qualified and physical names and table ids follow upstream', () => {
    const c = loadConfig({ text: BASE.replace('    table: orders', '    table: orders\n    alias: sales_orders').replace('table_id: orders', 'table_id: sales.sales_orders') }, {}).config;
    const t = c.tables[0]!;
    expect(tableId(t)).toBe('sales_orders');
    expect(qualifiedName(t)).toBe('sales.sales_orders');
    expect(physicalName(t)).toBe('pg_main.public.orders');
    // the RLS rule's qualified reference is normalised to the table id
    expect(c.rls_rules[0]!.table_id).toBe('sales_orders');
    expect(findTable(c, 'pg_main.public.orders')).toBe(t);
    expect(findTable(c, 'orders')).toBe(t);
  });

  it('the model is deeply frozen', () => {
    const c = loadConfig({ text: BASE }, {}).config;
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.tables[0]!.columns[1]!.unmasked_to)).toBe(true);
    expect(Object.isFrozen(c.stateful.cache)).toBe(true);
  });
});

function r0(list: readonly ConfigIssue[]): ConfigIssue {
  expect(list.length).toBeGreaterThan(0);
  return list[0]!;
}


describe('laws over the base config', () => {
  const env = { PG_PASSWORD: 'x' };
  const keyLines = BASE.split('\n')
    .map((line, i) => ({ line: i + 1, m: /^(\s*(?:- )?)([a-z_]+):/.exec(line) }))
    .filter((x): x is { line: number; m: RegExpExecArray } => x.m !== null);
  const allKeys = new Set(keyLines.map((k) => k.m[2]!));

  it('law: a misspelled key is reported as an error at its own line, with its key path', () => {
    fc.assert(
      fc.property(fc.constantFrom(...keyLines), fc.nat(), fc.constantFrom('x', 'q', ''), (k, at, ch) => {
        const key = k.m[2]!;
        const pos = at % key.length;
        const typo = key.slice(0, pos) + ch + key.slice(pos + 1);
        fc.pre(typo.length > 0 && !allKeys.has(typo) && !/^(id|name|type|table|schema|filter|alias)$/.test(typo));
        const lines = BASE.split('\n');
        lines[k.line - 1] = lines[k.line - 1]!.replace(`${key}:`, `${typo}:`);
        const r = checkConfig({ text: lines.join('\n') }, env);
        expect(r.ok).toBe(false);
        const e = r.errors.find((x) => x.code === 'CONFIG_UNKNOWN_KEY');
        expect(e, JSON.stringify(r.errors)).toBeDefined();
        expect(e!.line).toBe(k.line);
        expect(e!.path.endsWith(typo)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('law: every error found in YAML text carries a line number', () => {
    const edits: [string, string][] = [
      ['mask_type: regex', 'mask_type: nope'],
      ['type: postgresql', 'type: oracle'],
      ['role_id: analyst', 'role_id: x'],
      ['domain_id: sales', 'domain_id: y'],
      ['capabilities: [admin, query_development]', 'capabilities: [root]'],
      ['data_type: varchar', 'data_type: integer'],
      ['host: localhost', 'host: [a]'],
      ['table_id: orders', 'domain_id: orders'],
    ];
    fc.assert(
      fc.property(fc.subarray(edits, { minLength: 1 }), (chosen) => {
        const text = chosen.reduce((t, [from, to]) => t.replace(from, to), BASE);
        const r = checkConfig({ text }, env);
        expect(r.ok).toBe(false);
        for (const e of r.errors) expect(e.line, JSON.stringify(e)).toBeGreaterThan(0);
      }),
      { numRuns: 40 },
    );
  });
});

describe('YAML anchors, aliases and merge keys (as PyYAML reads upstream configs)', () => {
  it('aliases and << merges expand; explicit keys override merged ones', () => {
    const text = `
domains: [{id: sales}]
roles:
  - &analyst {id: analyst, capabilities: [query_development], domain_access: [sales]}
  - {<<: *analyst, id: senior}
sources: [{id: files, type: csv, path: /data/x.csv}]
tables:
  - source_id: files
    domain_id: sales
    table: x
    columns:
      - &visible {name: a, data_type: varchar, visible_to: [analyst, senior]}
      - {<<: *visible, name: b}
`;
    const c = loadConfig({ text }, {}).config;
    expect(c.roles).toEqual([
      { id: 'analyst', capabilities: ['query_development'], domain_access: ['sales'] },
      { id: 'senior', capabilities: ['query_development'], domain_access: ['sales'] },
    ]);
    expect(c.tables[0]!.columns.map((x) => [x.name, x.visible_to])).toEqual([
      ['a', ['analyst', 'senior']],
      ['b', ['analyst', 'senior']],
    ]);
  });

  it('a "__proto__" key is an unknown key, not a prototype', () => {
    const r = checkConfig({ text: '__proto__: {polluted: true}\n' }, {});
    expect(r.errors[0]).toMatchObject({ code: 'CONFIG_UNKNOWN_KEY', path: '__proto__', line: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('round trip', () => {
  it('law: loading the YAML of any valid catalog gives that catalog back', () => {
    fc.assert(
      fc.property(catalogArbitrary(), fc.boolean(), (catalog, flow) => {
        const text = stringify(catalog, flow ? { collectionStyle: 'flow' } : undefined);
        const r = checkConfig({ text }, {});
        expect(r.errors).toEqual([]);
        expect(catalogOf(r.config!)).toEqual(catalog);
      }),
      { numRuns: 60 },
    );
  });
});
