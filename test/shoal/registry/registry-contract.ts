/**
 * The registry contract: one suite, run against SQLite (unit, test/shoal/registry) and a real
 * PostgreSQL (test/integration/shoal/registry). Each test gets a fresh, empty registry database.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { SqlClient } from '../../../src/core/sql/sql-client.js';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { catalogOf, makeCatalog, makeTable, type CatalogModel } from '../../../src/shoal/config/model.js';
import { openRegistry } from '../../../src/shoal/registry/open-registry.js';
import type { Registry } from '../../../src/shoal/registry/registry.js';
import { watchEpoch, type EpochWatch } from '../../../src/shoal/registry/watch-epoch.js';
import { FLEET_ENV, fleetExampleGovernedYaml } from '../config/fixtures.js';
import { catalogArbitrary, catalogKey } from './catalog-arbitrary.js';
import { ManualTimer } from './manual-timer.js';

export interface RegistryHarness {
  /** A URL naming a fresh, empty database. */
  freshUrl(): Promise<string>;
  /** Raw SQL access to the database behind a URL, to read rows as stored. */
  raw(url: string): Promise<SqlClient>;
  /** Install a trigger that makes any INSERT into rls_rules with filter 'explode' fail. */
  installFailingTrigger(raw: SqlClient): Promise<void>;
  /** fast-check runs for the laws (PostgreSQL runs fewer: every run creates real rows). */
  readonly runs: number;
}

export function fleetCatalog(): CatalogModel {
  return catalogOf(loadConfig({ text: fleetExampleGovernedYaml() }, FLEET_ENV).config);
}

export function registryContract(label: string, harness: RegistryHarness): void {
  describe(`registry contract: ${label}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
    });

    async function fresh(): Promise<{ url: string; open: () => Promise<Registry>; raw: () => Promise<SqlClient> }> {
      const url = await harness.freshUrl();
      return {
        url,
        open: async () => {
          const r = await openRegistry(url);
          cleanups.push(() => r.close());
          return r;
        },
        raw: async () => {
          const c = await harness.raw(url);
          cleanups.push(() => c.close());
          return c;
        },
      };
    }

    async function watch(registry: Registry, timer: ManualTimer, onChange: (e: number) => void): Promise<EpochWatch> {
      const w = await watchEpoch(registry, { timer, intervalMs: 2000, listen: false }, onChange);
      cleanups.push(() => w.stop());
      return w;
    }

    it('a fresh registry has epoch 0 and an empty catalog', async () => {
      const r = await (await fresh()).open();
      expect(await r.epoch()).toBe(0);
      const s = await r.snapshot();
      expect(s.epoch).toBe(0);
      expect(catalogKey(s.catalog)).toBe(catalogKey(makeCatalog({})));
    });

    it('mints a deployment id at first open and keeps it; a registry that predates it gets one on its next open', async () => {
      const h = await fresh();
      const a = await h.open();
      expect(a.deploymentId).toMatch(/^[0-9a-f-]{36}$/);
      const b = await h.open();
      expect(b.deploymentId).toBe(a.deploymentId);
      expect((await (await fresh()).open()).deploymentId).not.toBe(a.deploymentId);
      // an existing registry of the layout before deployment ids: the row (and its table) absent
      const raw = await h.raw();
      await raw.exec('DROP TABLE registry_deployment');
      const c = await h.open();
      expect(c.deploymentId).toMatch(/^[0-9a-f-]{36}$/);
      expect(c.deploymentId).not.toBe(a.deploymentId);
      expect((await h.open()).deploymentId).toBe(c.deploymentId);
    });

    it('imports the §7 example and reads the same catalog back; a second import changes nothing', async () => {
      const r = await (await fresh()).open();
      const catalog = fleetCatalog();
      const first = await r.importConfig(catalog);
      expect(first.changed).toBe(true);
      expect(first.epoch).toBe(1);
      expect(first.changes).toContain('upsert table orders');
      const snap = await r.snapshot();
      expect(snap.epoch).toBe(1);
      expect(catalogKey(snap.catalog)).toBe(catalogKey(catalog));
      // column order is kept
      expect(snap.catalog.tables.find((t) => t.table === 'orders')!.columns.map((c) => c.name)).toEqual(['id', 'customer_id', 'region', 'currency_code', 'amount', 'email']);
      const second = await r.importConfig(catalog);
      expect(second).toEqual({ epoch: 1, changed: false, changes: [] });
      // entry order is not meaningful
      const reordered = { ...catalog, tables: [...catalog.tables].reverse(), roles: [...catalog.roles].reverse() };
      expect((await r.importConfig(reordered)).changed).toBe(false);
      expect(await r.epoch()).toBe(1);
    });

    it('only a real change bumps the epoch, by exactly one per mutation', async () => {
      const r = await (await fresh()).open();
      const catalog = fleetCatalog();
      await r.importConfig(catalog);
      const orders = catalog.tables.find((t) => t.table === 'orders')!;
      const changed = makeTable({ ...orders, columns: orders.columns.map((c) => (c.name === 'amount' ? { ...c, mask_value: '-1' } : c)) });
      const res = await r.registerTable(changed);
      expect(res).toEqual({ epoch: 2, changed: true, changes: ['upsert table orders'] });
      expect((await r.registerTable(changed)).changed).toBe(false);
      expect((await r.snapshot()).catalog.tables.find((t) => t.table === 'orders')!.columns.find((c) => c.name === 'amount')!.mask_value).toBe('-1');
      expect(await r.epoch()).toBe(2);
    });

    it('import merges by default and prunes on request', async () => {
      const r = await (await fresh()).open();
      await r.importConfig(fleetCatalog());
      await r.registerSource({ id: 'extra', type: 'parquet', path: '/data/x.parquet' });
      const full = fleetCatalog();
      const small = makeCatalog({ domains: full.domains, roles: full.roles.filter((x) => x.id === 'admin') });
      expect((await r.importConfig(small)).changed).toBe(false);
      expect((await r.snapshot()).catalog.sources.map((s) => s.id)).toEqual(['extra', 'sales-pg', 'segments-csv']);
      const pruned = await r.importConfig(small, { prune: true });
      expect(pruned.changed).toBe(true);
      expect(pruned.epoch).toBe(3);
      expect(catalogKey((await r.snapshot()).catalog)).toBe(catalogKey(small));
    });

    it('stores passwords only as ${env:…} references and refuses a literal one', async () => {
      const h = await fresh();
      const r = await h.open();
      await r.importConfig(fleetCatalog());
      const literal = 'correct-horse-battery-staple';
      await expect(r.registerSource({ id: 'leaky', type: 'postgresql', host: 'h', password: literal })).rejects.toMatchObject({
        code: 'REGISTRY_PLAINTEXT_SECRET',
        message: expect.not.stringContaining(literal),
      });
      await expect(r.registerSource({ id: 'leaky', type: 'postgresql', host: 'h', password: `\${env:X:-${literal}}` })).rejects.toMatchObject({
        code: 'REGISTRY_PLAINTEXT_SECRET',
      });
      expect(await r.epoch()).toBe(1);
      const raw = await h.raw();
      const sources = await raw.query<{ id: string; password_ref: string | null; definition: string }>('SELECT id, password_ref, definition FROM sources ORDER BY id');
      expect(sources.map((s) => [s.id, s.password_ref])).toEqual([
        ['sales-pg', '${env:SALES_PG_PASSWORD}'],
        ['segments-csv', null],
      ]);
      expect(JSON.parse(sources[0]!.definition).password).toBe('${env:SALES_PG_PASSWORD}');
      for (const table of ['sources', 'domains', 'registered_tables', 'table_columns', 'roles', 'rls_rules', 'relationships']) {
        const rows = await raw.query(`SELECT * FROM ${table}`);
        expect(JSON.stringify(rows), table).not.toContain(literal);
      }
    });

    it('refuses to drop a source while tables reference it, then drops it once they are gone', async () => {
      const r = await (await fresh()).open();
      await r.importConfig(fleetCatalog());
      await expect(r.dropSource('segments-csv')).rejects.toMatchObject({
        code: 'REGISTRY_IN_USE',
        message: expect.stringContaining('table customer_segments'),
        hint: expect.any(String),
      });
      expect(await r.epoch()).toBe(1);
      expect((await r.dropTable('sales.customer_segments')).changes).toEqual(['delete table customer_segments']);
      expect((await r.dropSource('segments-csv')).epoch).toBe(3);
      await expect(r.dropSource('segments-csv')).rejects.toMatchObject({ code: 'REGISTRY_NOT_FOUND' });
    });

    it('refuses to drop a table its RLS rules or relationships use, a role its rules use, a domain its tables use', async () => {
      const r = await (await fresh()).open();
      await r.importConfig(fleetCatalog());
      await expect(r.dropTable('orders')).rejects.toMatchObject({ code: 'REGISTRY_IN_USE', message: expect.stringMatching(/rls rule for role analyst.*relationship orders-to-currency/) });
      await expect(r.dropRole('analyst')).rejects.toMatchObject({ code: 'REGISTRY_IN_USE' });
      await expect(r.dropDomain('sales')).rejects.toMatchObject({ code: 'REGISTRY_IN_USE' });
      expect(await r.epoch()).toBe(1);
      await r.dropRlsRule({ table_id: 'orders', role_id: 'analyst' });
      await r.dropRelationship('orders-to-currency');
      expect((await r.dropTable('orders')).changed).toBe(true);
      expect(await r.epoch()).toBe(4);
    });

    it('validates a registration against the whole catalog; a refused one changes nothing', async () => {
      const h = await fresh();
      const r = await h.open();
      await r.importConfig(fleetCatalog());
      const before = await r.snapshot();
      await expect(r.registerTable(makeTable({ source_id: 'nope', domain_id: 'sales', table: 't' }))).rejects.toMatchObject({
        code: 'REGISTRY_INVALID',
        message: expect.stringContaining('table t.source_id: unknown source "nope"'),
      });
      await expect(r.registerTable(makeTable({ source_id: 'sales-pg', domain_id: 'sales', table: 't', columns: [{ name: 'c', mask_type: 'regex' }] }))).rejects.toMatchObject({
        code: 'REGISTRY_INVALID',
      });
      await expect(r.upsertRlsRule({ table_id: 'orders', role_id: 'ghost', filter: 'true' })).rejects.toMatchObject({ code: 'REGISTRY_INVALID' });
      await expect(r.upsertRlsRule({ role_id: 'analyst', filter: 'true' })).rejects.toMatchObject({ code: 'REGISTRY_INVALID' });
      const after = await r.snapshot();
      expect(after.epoch).toBe(before.epoch);
      expect(catalogKey(after.catalog)).toBe(catalogKey(before.catalog));
    });

    it('a mutation that fails part-way through its writes is rolled back whole and does not bump the epoch', async () => {
      const h = await fresh();
      const r = await h.open();
      await r.importConfig(fleetCatalog());
      await harness.installFailingTrigger(await h.raw());
      const base = fleetCatalog();
      // a new table (written first) plus an RLS rule the trigger rejects (written last)
      const bad = makeCatalog({
        ...base,
        tables: [...base.tables, makeTable({ source_id: 'segments-csv', domain_id: 'sales', table: 'fresh_table' })],
        rls_rules: [...base.rls_rules, { table_id: 'fresh_table', role_id: 'analyst', filter: 'explode' }],
      });
      await expect(r.importConfig(bad)).rejects.toThrow();
      const snap = await r.snapshot();
      expect(snap.epoch).toBe(1);
      expect(snap.catalog.tables.map((t) => t.table)).not.toContain('fresh_table');
      expect(catalogKey(snap.catalog)).toBe(catalogKey(base));
    });

    it('RLS rules are keyed by canonical table id: a qualified reference updates the same rule', async () => {
      const r = await (await fresh()).open();
      await r.importConfig(fleetCatalog());
      const res = await r.upsertRlsRule({ table_id: 'sales.orders', role_id: 'analyst', filter: 'region = \'EU\'' });
      expect(res.changes).toEqual(['upsert rls rule table orders role analyst']);
      const rules = (await r.snapshot()).catalog.rls_rules;
      // the fleet catalog's MV carries its own rule for the analyst (a view may not launder orders' rows)
      expect(rules.filter((x) => x.table_id === 'orders')).toEqual([{ table_id: 'orders', role_id: 'analyst', filter: "region = 'EU'" }]);
      expect(rules).toHaveLength(2);
      await r.upsertRlsRule({ domain_id: 'sales', role_id: 'analyst', filter: 'true' });
      expect((await r.snapshot()).catalog.rls_rules).toHaveLength(3);
    });

    it('a mutation through one handle is seen by another handle within one poll interval', async () => {
      const h = await fresh();
      const a = await h.open();
      const b = await h.open();
      await a.importConfig(fleetCatalog());
      const timer = new ManualTimer();
      const seen: number[] = [];
      const w = await watch(b, timer, (e) => void seen.push(e));
      expect(w.seen).toBe(1);
      expect(timer.scheduled).toEqual([2000]);
      timer.fire();
      await w.idle();
      expect(seen).toEqual([]);
      await a.registerSource({ id: 'late', type: 'json', path: '/data/late.json' });
      timer.fire(); // one poll interval elapses
      await w.idle();
      expect(seen).toEqual([2]);
      expect((await b.snapshot()).catalog.sources.map((s) => s.id)).toContain('late');
      // a no-op mutation is not a change
      await a.registerSource({ id: 'late', type: 'json', path: '/data/late.json' });
      timer.fire();
      await w.idle();
      expect(seen).toEqual([2]);
    });

    it('several handles opening a fresh registry at once all succeed (the schema is created once)', async () => {
      const h = await fresh();
      const handles = await Promise.all([h.open(), h.open(), h.open()]);
      await handles[0]!.registerDomain({ id: 'd' });
      for (const r of handles) expect(await r.epoch()).toBe(1);
    });

    it('concurrent mutations through two handles serialise: both land and the epoch counts both', async () => {
      const h = await fresh();
      const a = await h.open();
      const b = await h.open();
      const results = await Promise.all([
        a.registerDomain({ id: 'one' }),
        b.registerDomain({ id: 'two' }),
        a.registerDomain({ id: 'three' }),
        b.registerDomain({ id: 'four' }),
      ]);
      expect(results.map((x) => x.epoch).sort()).toEqual([1, 2, 3, 4]);
      expect((await a.snapshot()).catalog.domains.map((d) => d.id)).toEqual(['four', 'one', 'three', 'two']);
    });

    it('a snapshot is one consistent read: its epoch always matches its catalog, even during mutations', async () => {
      const h = await fresh();
      const a = await h.open();
      const b = await h.open();
      const writes = (async () => {
        for (let i = 0; i < 12; i++) await a.registerDomain({ id: `d${String(i).padStart(2, '0')}` });
      })();
      const snapshots = [];
      let done = false;
      void writes.then(() => (done = true));
      while (!done) snapshots.push(await b.snapshot());
      await writes;
      snapshots.push(await b.snapshot());
      // every mutation added one domain and bumped the epoch once
      for (const s of snapshots) expect(s.catalog.domains.length).toBe(s.epoch);
      expect(snapshots.at(-1)!.epoch).toBe(12);
    });

    it('law: importing a catalog into an empty registry reads it back; importing it again is a no-op', async () => {
      await fc.assert(
        fc.asyncProperty(catalogArbitrary(), async (catalog) => {
          const r = await openRegistry(await harness.freshUrl());
          try {
            const first = await r.importConfig(catalog);
            expect(first.epoch).toBe(first.changed ? 1 : 0);
            expect(catalogKey((await r.snapshot()).catalog)).toBe(catalogKey(catalog));
            expect(await r.importConfig(catalog)).toEqual({ epoch: first.epoch, changed: false, changes: [] });
          } finally {
            await r.close();
          }
        }),
        { numRuns: harness.runs },
      );
    });

    it('law: the epoch moves by exactly one when a mutation changes the catalog, and not otherwise (failures included)', async () => {
      const op = fc.oneof(
        fc.record({ kind: fc.constant('domain' as const), id: fc.constantFrom('d1', 'd2'), description: fc.constantFrom(undefined, 'x', 'y') }),
        fc.record({ kind: fc.constant('dropDomain' as const), id: fc.constantFrom('d1', 'd2') }),
        fc.record({ kind: fc.constant('source' as const), id: fc.constantFrom('s1', 's2'), path: fc.constantFrom('/a.csv', '/b.csv') }),
        fc.record({ kind: fc.constant('dropSource' as const), id: fc.constantFrom('s1', 's2') }),
        fc.record({ kind: fc.constant('table' as const), name: fc.constantFrom('t1', 't2'), source: fc.constantFrom('s1', 's2'), domain: fc.constantFrom('d1', 'd2') }),
        fc.record({ kind: fc.constant('dropTable' as const), name: fc.constantFrom('t1', 't2') }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
          const r = await openRegistry(await harness.freshUrl());
          try {
            for (const o of ops) {
              const before = await r.snapshot();
              let result: { changed: boolean; epoch: number } | undefined;
              try {
                switch (o.kind) {
                  case 'domain': result = await r.registerDomain({ id: o.id, description: o.description }); break;
                  case 'dropDomain': result = await r.dropDomain(o.id); break;
                  case 'source': result = await r.registerSource({ id: o.id, type: 'csv', path: o.path }); break;
                  case 'dropSource': result = await r.dropSource(o.id); break;
                  case 'table': result = await r.registerTable(makeTable({ source_id: o.source, domain_id: o.domain, table: o.name })); break;
                  case 'dropTable': result = await r.dropTable(o.name); break;
                }
              } catch (e) {
                expect((e as { code?: string }).code).toMatch(/^REGISTRY_/);
              }
              const after = await r.snapshot();
              const differs = catalogKey(before.catalog) !== catalogKey(after.catalog);
              expect(after.epoch).toBe(before.epoch + (differs ? 1 : 0));
              if (result) expect(result).toMatchObject({ changed: differs, epoch: after.epoch });
            }
          } finally {
            await r.close();
          }
        }),
        { numRuns: harness.runs },
      );
    });
  });
}
