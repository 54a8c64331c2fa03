/** fast-check generators of valid catalogs, for registry laws. */
import fc from 'fast-check';
import {
  makeCatalog,
  tableId,
  type CatalogModel,
  type ColumnConfig,
  type TableConfig,
} from '../../../src/shoal/config/model.js';

const ident = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/);

export function catalogArbitrary(): fc.Arbitrary<CatalogModel> {
  return fc
    .record({
      domains: fc.uniqueArray(ident, { minLength: 1, maxLength: 3 }),
      sources: fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9-]{0,6}$/), { minLength: 1, maxLength: 3, selector: (s) => s.replace(/-/g, '_') }),
      roles: fc.uniqueArray(ident, { minLength: 1, maxLength: 3 }),
      tables: fc.uniqueArray(
        fc.record({
          name: ident,
          source: fc.nat(),
          domain: fc.nat(),
          columns: fc.uniqueArray(fc.record({ name: ident, masked: fc.boolean(), visible: fc.boolean() }), { maxLength: 4, selector: (c) => c.name }),
          hot: fc.option(fc.boolean(), { nil: undefined }),
        }),
        { maxLength: 4, selector: (t) => t.name },
      ),
      rls: fc.array(fc.record({ table: fc.nat(), role: fc.nat(), filter: fc.constantFrom('id > 0', "region = current_setting('provisa.user_region')", 'true') }), { maxLength: 3 }),
      withPassword: fc.boolean(),
    })
    .map((g) => {
      const sources = g.sources.map((id, i) =>
        i === 0 && g.withPassword
          ? { id, type: 'postgresql' as const, host: 'db', port: 5432, password: `\${env:PW_${i}}` }
          : { id, type: 'csv' as const, path: `/data/${id}.csv` },
      );
      const roleIds = g.roles;
      const tables: TableConfig[] = g.tables.map((t) => ({
        source_id: sources[t.source % sources.length]!.id,
        domain_id: g.domains[t.domain % g.domains.length]!,
        schema: 'default',
        table: t.name,
        hot: t.hot,
        materialize: false,
        mv_refresh_interval: 300,
        mv_consistency: 'shared',
        columns: t.columns.map(
          (c): ColumnConfig => ({
            name: c.name,
            data_type: 'varchar',
            visible_to: c.visible ? roleIds : undefined,
            unmasked_to: c.masked ? [roleIds[0]!] : [],
            ...(c.masked ? { mask_type: 'constant' as const, mask_value: 'x' } : {}),
          }),
        ),
      }));
      const rlsSeen = new Set<string>();
      const rls_rules = tables.length === 0 ? [] : g.rls
        .map((r) => ({ table_id: tableId(tables[r.table % tables.length]!), role_id: roleIds[r.role % roleIds.length]!, filter: r.filter }))
        .filter((r) => {
          const k = `${r.table_id}/${r.role_id}`;
          if (rlsSeen.has(k)) return false;
          rlsSeen.add(k);
          return true;
        });
      return makeCatalog({
        domains: g.domains.map((id) => ({ id })),
        sources,
        roles: roleIds.map((id) => ({ id, capabilities: ['query_development'], domain_access: ['*'] })),
        tables,
        rls_rules,
      });
    });
}

/** Order-insensitive canonical text of a catalog (the registry returns entries sorted by id). */
export function catalogKey(c: CatalogModel): string {
  const sortBy = <T>(list: readonly T[], key: (v: T) => string) => [...list].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return JSON.stringify(
    {
      sources: sortBy(c.sources, (s) => s.id),
      domains: sortBy(c.domains, (d) => d.id),
      tables: sortBy(c.tables, tableId),
      relationships: sortBy(c.relationships, (r) => r.id),
      roles: sortBy(c.roles, (r) => r.id),
      rls_rules: sortBy(c.rls_rules, (r) => `${r.table_id ?? ''}|${r.domain_id ?? ''}|${r.role_id}`),
    },
    (_, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v),
  );
}
