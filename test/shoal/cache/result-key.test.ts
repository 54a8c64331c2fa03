import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resultCacheability, type ResultKeyInput } from '../../../src/shoal/cache/result-key.js';
import { resultTtlSeconds } from '../../../src/shoal/cache/result-ttl.js';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { catalogFromConfig, planQuery } from '../../../src/shoal/sql/index.js';

const CONFIG = `
cache: {default_ttl: 300}
domains: [{id: sales}]
sources:
  - {id: a, type: csv, path: a.csv, cache_ttl: 120}
  - {id: b, type: csv, path: b.csv}
tables:
  - {source_id: a, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}, {name: at, data_type: timestamp}]}
  - {source_id: a, domain_id: sales, table: rates, cache_ttl: 30, columns: [{name: region, data_type: varchar}, {name: rate, data_type: integer}]}
  - {source_id: b, domain_id: sales, table: kinds, columns: [{name: k, data_type: integer}]}
  - {source_id: b, domain_id: sales, table: frozen, cache_ttl: 0, columns: [{name: k, data_type: integer}]}
  - {source_id: b, domain_id: sales, table: long, cache_ttl: 900, columns: [{name: k, data_type: integer}]}
  - source_id: __derived__
    domain_id: sales
    table: by_region
    view_sql: 'SELECT region, count(*) AS n FROM "a"."default"."rates" GROUP BY region'
    columns: [{name: region, data_type: varchar}, {name: n, data_type: bigint}]
  - source_id: __derived__
    domain_id: sales
    table: recent
    definer_rows: true
    view_sql: 'SELECT id FROM "a"."default"."orders" WHERE at > now() - INTERVAL 1 DAY'
    columns: [{name: id, data_type: integer}]
roles:
  - {id: admin, capabilities: [admin, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [full_results], domain_access: [sales]}
  - {id: clerk, capabilities: [full_results], domain_access: [sales]}
  - {id: night, capabilities: [full_results], domain_access: [sales]}
rls_rules:
  - {table_id: orders, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
  - {table_id: orders, role_id: clerk, filter: "region = current_setting('provisa.user_region', true) OR region = current_setting('provisa.extra', true)"}
  - {table_id: orders, role_id: night, filter: "at > now() - INTERVAL '1 day'"}
`;

const { config } = loadConfig({ text: CONFIG });
const governance = catalogFromConfig(config);
const ctx = { deployment: 'deployment-a', model: config, governance, defaultTtl: 300 };
const FIXED = new Date('2026-01-01T00:00:00Z');

function input(sql: string, role: string, vars: Record<string, string> = {}, extra: Partial<ResultKeyInput> = {}): ResultKeyInput {
  const plan = planQuery({ sql, role, vars }, governance, { clock: () => FIXED });
  return { epoch: 1, route: plan.route.kind, sql: plan.sql, userSql: sql, role, vars, tables: plan.tables, ...extra };
}
const keyOf = (i: ResultKeyInput): string => {
  const c = resultCacheability(i, ctx);
  if (!c.cacheable) throw new Error(`uncacheable: ${c.reason}`);
  return c.key;
};
const reasonOf = (i: ResultKeyInput): string | undefined => {
  const c = resultCacheability(i, ctx);
  return c.cacheable ? undefined : c.reason;
};

describe('result TTL', () => {
  it('resolves table > source > default, and a query takes the least over its tables', () => {
    expect(resultTtlSeconds(config, ['sales.kinds'], 300)).toBe(300); // default
    expect(resultTtlSeconds(config, ['sales.orders'], 300)).toBe(120); // source
    expect(resultTtlSeconds(config, ['sales.rates'], 300)).toBe(30); // table beats source
    expect(resultTtlSeconds(config, ['sales.long'], 300)).toBe(900); // a table may be longer than the default
    expect(resultTtlSeconds(config, ['sales.long', 'sales.orders', 'sales.kinds'], 300)).toBe(120);
    expect(resultTtlSeconds(config, ['sales.kinds', 'sales.frozen'], 300)).toBe(0);
    expect(resultTtlSeconds(config, [], 300)).toBe(300);
  });

  it('a view also counts the tables its SQL reads', () => {
    expect(resultTtlSeconds(config, ['sales.by_region'], 300)).toBe(30);
  });
});

describe('result cache key', () => {
  it('is the same for the same request, and differs by role, by the session variables read, by epoch, by MV snapshot', () => {
    const sql = 'SELECT id, region FROM sales.orders ORDER BY id';
    const base = keyOf(input(sql, 'analyst', { 'provisa.user_region': 'eu' }));
    expect(keyOf(input(sql, 'analyst', { 'provisa.user_region': 'eu' }))).toBe(base);
    expect(keyOf(input(sql, 'analyst', { user_region: 'eu' }))).toBe(base); // the same variable, short name
    expect(keyOf(input(sql, 'analyst', { 'provisa.user_region': 'us' }))).not.toBe(base);
    expect(keyOf(input(sql, 'admin', { 'provisa.user_region': 'eu' }))).not.toBe(base);
    expect(keyOf(input(sql, 'analyst', { 'provisa.user_region': 'eu' }, { epoch: 2 }))).not.toBe(base);
    expect(keyOf(input(sql, 'analyst', { 'provisa.user_region': 'eu' }, { mv: 'sales.x=snapshot:2' }))).not.toBe(base);
  });

  it('ignores session variables nothing reads, and tells an unset optional variable from an empty one', () => {
    const sql = 'SELECT id FROM sales.orders';
    expect(keyOf(input(sql, 'analyst', { 'provisa.user_region': 'eu', 'provisa.unrelated': 'x' }))).toBe(keyOf(input(sql, 'analyst', { 'provisa.user_region': 'eu' })));
    const unset = keyOf(input(sql, 'clerk', { 'provisa.user_region': 'eu' }));
    expect(keyOf(input(sql, 'clerk', { 'provisa.user_region': 'eu', 'provisa.extra': '' }))).not.toBe(unset);
    expect(keyOf(input(sql, 'clerk', { 'provisa.user_region': 'eu', 'provisa.extra': 'us' }))).not.toBe(unset);
  });

  it('law: two requests share a key only when role and every session variable read are equal', () => {
    const region = fc.constantFrom('eu', 'us', "o'brien", '');
    const req = fc.record({
      role: fc.constantFrom('admin', 'analyst', 'clerk'),
      vars: fc.record({ 'provisa.user_region': region, 'provisa.extra': region }, { requiredKeys: ['provisa.user_region'] }),
      sql: fc.constantFrom('SELECT id FROM sales.orders', 'SELECT region, count(*) FROM sales.orders GROUP BY region', "SELECT id FROM sales.orders WHERE region = current_setting('provisa.user_region')"),
    });
    fc.assert(
      fc.property(req, req, (a, b) => {
        const ka = keyOf(input(a.sql, a.role, a.vars));
        const kb = keyOf(input(b.sql, b.role, b.vars));
        const readsRegion = a.role !== 'admin' || a.sql.includes('current_setting');
        const readsExtra = a.role === 'clerk';
        const sameInputs =
          a.sql === b.sql && a.role === b.role &&
          (!readsRegion || a.vars['provisa.user_region'] === b.vars['provisa.user_region']) &&
          (!readsExtra || a.vars['provisa.extra'] === b.vars['provisa.extra']);
        expect(ka === kb).toBe(sameInputs);
      }),
      { numRuns: 60 },
    );
  });

  it('fails closed: the clock, randomness, the session, external calls, sampling and arbitrary picks are uncacheable', () => {
    expect(reasonOf(input('SELECT id, now() AS t FROM sales.orders', 'admin'))).toMatch(/now\(\)/);
    expect(reasonOf(input('SELECT id FROM sales.orders WHERE at > current_date', 'admin'))).toMatch(/current/);
    expect(reasonOf(input('SELECT id, localtimestamp AS t FROM sales.orders', 'admin'))).toMatch(/localtimestamp/);
    // the allowlist refuses these today; the key does not rely on it (defence in depth)
    const planned = input('SELECT id FROM sales.orders', 'admin');
    for (const [userSql, why] of [
      ['SELECT id, random() AS r FROM sales.orders', /random/],
      ['SELECT id, current_user AS u FROM sales.orders', /session|current_user/],
      ['SELECT id, gen_random_uuid() AS u FROM sales.orders', /gen_random_uuid/],
      ["SELECT id, http_get('https://x') AS u FROM sales.orders", /outside the database/],
      ['SELECT id FROM sales.orders TABLESAMPLE BERNOULLI (10)', /TABLESAMPLE/],
      ['SELECT any_value(id) FROM sales.orders', /arbitrary/],
      ["SELECT id FROM sales.orders WHERE region = current_setting(region)", /non-literal/],
      ["SELECT id FROM sales.orders WHERE region = current_setting('work_mem')", /'work_mem' cannot be captured/],
      ['SELECT id FROM', /cannot be analysed/],
    ] as const) {
      expect(reasonOf({ ...planned, userSql }), userSql).toMatch(why);
    }
    expect(reasonOf(input('SELECT id FROM sales.orders', 'night'))).toMatch(/now\(\)/); // the row filter reads the clock
    expect(reasonOf(input('SELECT id FROM sales.recent', 'admin'))).toMatch(/now\(\)/); // a view body reads the clock
  });

  it('fails closed on what the key cannot capture: an empty row filter, a session read left in the SQL, a TTL of 0', () => {
    const stub = { ...governance, rowFilters: (role: string, t: string) => (t === 'sales.kinds' ? [' '] : governance.rowFilters(role, t)) };
    expect(resultCacheability(input('SELECT k FROM sales.kinds', 'admin'), { ...ctx, governance: stub })).toEqual({ cacheable: false, reason: 'a row filter of sales.kinds is empty' });
    const i = input('SELECT k FROM sales.kinds', 'admin');
    expect(reasonOf({ ...i, sql: `${i.sql} WHERE current_setting('provisa.x') = 'y'` })).toBe('the SQL that runs reads a session variable');
    expect(reasonOf(input('SELECT k FROM sales.frozen', 'admin'))).toBe('the TTL is 0');
    expect(reasonOf(input('SELECT f.k FROM sales.frozen f JOIN sales.kinds k ON f.k = k.k', 'admin'))).toBe('the TTL is 0');
  });

  it('caches row-order-dependent queries (LIMIT without ORDER BY): any live answer is as valid as the stored one', () => {
    const c = resultCacheability(input('SELECT id FROM sales.orders LIMIT 1', 'admin'), ctx);
    expect(c).toMatchObject({ cacheable: true, ttlSeconds: 120, tables: ['sales.orders'] });
  });
});

describe('result keys per deployment', () => {
  it('two deployments (same epoch, SQL, role and catalog) never share a key', () => {
    const i = input('SELECT id FROM sales.orders', 'admin');
    expect(resultCacheability(i, { ...ctx, deployment: 'deployment-b' })).toMatchObject({ cacheable: true });
    expect(keyOf(i)).not.toBe((resultCacheability(i, { ...ctx, deployment: 'deployment-b' }) as { key: string }).key);
  });

  it('a source pointed elsewhere (another host, port, database or path) changes the key; its password value never enters it', () => {
    const i = input('SELECT id FROM sales.orders', 'admin');
    const moved = (change: Record<string, unknown>) => {
      const model = { ...config, sources: config.sources.map((s) => (s.id === 'a' ? { ...s, ...change } : s)) };
      return (resultCacheability(i, { ...ctx, model }) as { key: string }).key;
    };
    expect(moved({ host: 'elsewhere.example' })).not.toBe(keyOf(i));
    expect(moved({ port: 6543 })).not.toBe(keyOf(i));
    expect(moved({ database: 'other' })).not.toBe(keyOf(i));
    expect(moved({})).toBe(keyOf(i));
    expect(moved({ password: '${env:A_PASSWORD}' })).toBe(moved({ password: '${env:A_PASSWORD}' }));
  });
});
