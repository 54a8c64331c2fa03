/**
 * The declarative control plane's registry contract (plan, apply, optimistic concurrency), run
 * against SQLite (test/shoal/registry) and a real PostgreSQL (test/integration/shoal/registry).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { catalogOf, makeCatalog, makeColumn, makeTable, type CatalogModel } from '../../../src/shoal/config/model.js';
import { openRegistry } from '../../../src/shoal/registry/open-registry.js';
import type { Registry } from '../../../src/shoal/registry/registry.js';
import { catalogArbitrary, catalogKey } from './catalog-arbitrary.js';
import { fleetCatalog, type RegistryHarness } from './registry-contract.js';

/** The fleet example without one RLS rule, one table (and what referenced it) and one role. */
function shrunk(full: CatalogModel): CatalogModel {
  const rules = full.rls_rules.filter((r) => !(r.table_id === 'orders' && r.role_id === 'analyst'));
  const tables = full.tables.filter((t) => t.table !== 'customer_segments');
  return catalogOf({
    ...full,
    tables,
    rls_rules: rules.filter((r) => r.table_id === undefined || tables.some((t) => (t.alias ?? t.table) === r.table_id)),
    relationships: full.relationships.filter((r) => tables.some((t) => (t.alias ?? t.table) === r.source_table_id) && tables.some((t) => (t.alias ?? t.table) === r.target_table_id)),
  });
}

export function applyContract(label: string, harness: Pick<RegistryHarness, 'freshUrl' | 'runs'>): void {
  describe(`registry plan and apply: ${label}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
    });
    const open = async (url: string): Promise<Registry> => {
      const r = await openRegistry(url);
      cleanups.push(() => r.close());
      return r;
    };

    it('apply makes the registry exactly the config: a rule, a table and its relationships deleted from the file are deleted, in one epoch', async () => {
      const r = await open(await harness.freshUrl());
      const full = fleetCatalog();
      expect((await r.applyConfig(full)).epoch).toBe(1);
      // registered beside the config (e.g. through the admin API): apply removes it too
      await r.registerDomain({ id: 'scratch' });
      const small = shrunk(full);
      expect(small.tables.length).toBeLessThan(full.tables.length);
      const planned = await r.plan(small);
      expect(planned.epoch).toBe(2);
      expect(planned.entries).toContainEqual({ kind: 'rls_rule', id: 'table orders role analyst', action: 'delete' });
      expect(planned.entries).toContainEqual({ kind: 'table', id: 'customer_segments', action: 'delete' });
      expect(planned.entries).toContainEqual({ kind: 'domain', id: 'scratch', action: 'delete' });
      expect(planned.entries.every((e) => e.action === 'delete')).toBe(true);
      // plan writes nothing
      expect(await r.epoch()).toBe(2);
      const applied = await r.applyConfig(small);
      expect(applied).toMatchObject({ epoch: 3, changed: true });
      expect(applied.entries).toEqual(planned.entries);
      expect(catalogKey((await r.snapshot()).catalog)).toBe(catalogKey(small));
    });

    it('apply is idempotent: a second apply of the same config changes nothing and bumps nothing', async () => {
      const r = await open(await harness.freshUrl());
      const full = fleetCatalog();
      await r.applyConfig(full);
      expect(await r.applyConfig(full)).toEqual({ epoch: 1, changed: false, changes: [], entries: [] });
      expect((await r.plan(full)).entries).toEqual([]);
      // entry order in the file is not meaningful
      expect((await r.applyConfig({ ...full, tables: [...full.tables].reverse() })).changed).toBe(false);
      expect(await r.epoch()).toBe(1);
    });

    it('plan names additions, changes (with the columns that changed) and deletions per kind and id', async () => {
      const r = await open(await harness.freshUrl());
      const full = fleetCatalog();
      expect((await r.plan(full)).entries.every((e) => e.action === 'add')).toBe(true);
      await r.applyConfig(full);
      const edited = catalogOf({
        ...full,
        domains: [...full.domains, { id: 'new_domain' }],
        tables: full.tables.map((t) => (t.table === 'orders' ? { ...t, columns: [...t.columns.filter((c) => c.name !== 'email'), makeColumn({ name: 'note', data_type: 'varchar' })] } : t)),
        rls_rules: full.rls_rules.map((x) => (x.table_id === 'orders' && x.role_id === 'analyst' ? { ...x, filter: "region = 'us'" } : x)),
      });
      const { entries } = await r.plan(edited);
      expect(entries).toEqual([
        { kind: 'domain', id: 'new_domain', action: 'add' },
        { kind: 'table', id: 'orders', action: 'change', detail: ['add column note', 'delete column email'] },
        { kind: 'rls_rule', id: 'table orders role analyst', action: 'change' },
      ]);
    });

    it('an invalid config is refused whole by plan and by apply: nothing written, no epoch', async () => {
      const r = await open(await harness.freshUrl());
      await r.applyConfig(fleetCatalog());
      const bad = catalogOf({ ...fleetCatalog(), domains: [] });
      await expect(r.plan(bad)).rejects.toMatchObject({ code: 'REGISTRY_INVALID' });
      await expect(r.applyConfig(bad)).rejects.toMatchObject({ code: 'REGISTRY_INVALID' });
      expect(await r.epoch()).toBe(1);
      expect(catalogKey((await r.snapshot()).catalog)).toBe(catalogKey(fleetCatalog()));
    });

    it('two concurrent applies through two handles never interleave: the registry ends exactly one of them, one epoch each', async () => {
      const url = await harness.freshUrl();
      const a = await open(url);
      const b = await open(url);
      const full = fleetCatalog();
      const small = shrunk(full);
      await a.applyConfig(small);
      for (let round = 0; round < 3; round++) {
        const before = await a.epoch();
        const [x, y] = await Promise.all([a.applyConfig(full), b.applyConfig(small)]);
        // each apply that changed something bumped exactly once, at its own epoch
        expect(await a.epoch()).toBe(before + Number(x.changed) + Number(y.changed));
        if (x.changed && y.changed) expect(x.epoch).not.toBe(y.epoch);
        // the later commit is the whole state, never a mix of the two files
        const last = [x, y].filter((v) => v.changed).sort((p, q) => q.epoch - p.epoch)[0];
        const final = catalogKey((await a.snapshot()).catalog);
        if (last) expect(final).toBe(catalogKey(last === x ? full : small));
        expect([catalogKey(full), catalogKey(small)]).toContain(final);
      }
      // the same config applied concurrently lands once
      await a.applyConfig(small);
      const before = await a.epoch();
      const same = await Promise.all([a.applyConfig(full), b.applyConfig(full), a.applyConfig(full)]);
      expect(same.filter((v) => v.changed)).toHaveLength(1);
      expect(await a.epoch()).toBe(before + 1);
      expect(catalogKey((await b.snapshot()).catalog)).toBe(catalogKey(full));
    });

    it('expected epoch: a mutation or apply that finds another epoch is refused (REGISTRY_EPOCH_MISMATCH) and writes nothing', async () => {
      const r = await open(await harness.freshUrl());
      await r.applyConfig(fleetCatalog());
      await expect(r.registerDomain({ id: 'late' }, { expectedEpoch: 0 })).rejects.toMatchObject({ code: 'REGISTRY_EPOCH_MISMATCH' });
      await expect(r.applyConfig(shrunk(fleetCatalog()), { expectedEpoch: 0 })).rejects.toMatchObject({ code: 'REGISTRY_EPOCH_MISMATCH' });
      expect(await r.epoch()).toBe(1);
      expect((await r.registerDomain({ id: 'on-time' }, { expectedEpoch: 1 })).epoch).toBe(2);
      await expect(r.dropDomain('on-time', { expectedEpoch: 1 })).rejects.toMatchObject({ code: 'REGISTRY_EPOCH_MISMATCH' });
      expect((await r.snapshot()).catalog.domains.map((d) => d.id)).toContain('on-time');
    });

    it('columns: upsert replaces in place or appends, drop removes; the last column cannot be dropped', async () => {
      const r = await open(await harness.freshUrl());
      await r.applyConfig(fleetCatalog());
      await r.upsertColumn('orders', makeColumn({ name: 'amount', data_type: 'bigint' }));
      await r.upsertColumn('sales.orders', makeColumn({ name: 'note', data_type: 'varchar' }));
      let orders = (await r.snapshot()).catalog.tables.find((t) => t.table === 'orders')!;
      expect(orders.columns.map((c) => c.name)).toEqual(['id', 'customer_id', 'region', 'currency_code', 'amount', 'email', 'note']);
      expect(orders.columns.find((c) => c.name === 'amount')!.data_type).toBe('bigint');
      await r.dropColumn('orders', 'note');
      orders = (await r.snapshot()).catalog.tables.find((t) => t.table === 'orders')!;
      expect(orders.columns.map((c) => c.name)).not.toContain('note');
      await expect(r.dropColumn('orders', 'nope')).rejects.toMatchObject({ code: 'REGISTRY_NOT_FOUND' });
      const one = makeCatalog({ domains: [{ id: 'd' }], sources: [{ id: 's', type: 'csv', path: '/x.csv' }], tables: [makeTable({ source_id: 's', domain_id: 'd', table: 't', columns: [makeColumn({ name: 'only' })] })] });
      await r.applyConfig(one);
      await expect(r.dropColumn('t', 'only')).rejects.toMatchObject({ code: 'REGISTRY_IN_USE' });
    });

    it('law: applying any catalog over any other leaves exactly it, and applying it again is a no-op', async () => {
      await fc.assert(
        fc.asyncProperty(catalogArbitrary(), catalogArbitrary(), async (first, second) => {
          const r = await openRegistry(await harness.freshUrl());
          try {
            await r.applyConfig(first);
            const e = await r.epoch();
            const planned = await r.plan(second);
            const applied = await r.applyConfig(second);
            expect(applied.entries).toEqual(planned.entries);
            expect(applied.changed).toBe(planned.entries.length > 0);
            expect(await r.epoch()).toBe(e + (applied.changed ? 1 : 0));
            expect(catalogKey((await r.snapshot()).catalog)).toBe(catalogKey(second));
            expect((await r.applyConfig(second)).changed).toBe(false);
          } finally {
            await r.close();
          }
        }),
        { numRuns: harness.runs },
      );
    });
  });
}
