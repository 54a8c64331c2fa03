/**
 * Who owns the catalog (control_plane.catalog) decides what an instance writes at start:
 * `config` (the default) makes the registry exactly the file — a rule deleted from the file is
 * deleted; `registry` seeds a registry nothing was written to and otherwise leaves it alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { openRegistry } from '../../../src/shoal/registry/open-registry.js';

const RULE = `rls_rules:
  - {table_id: orders, role_id: analyst, filter: "region = 'eu'"}
`;

function yaml(catalog: 'config' | 'registry' | undefined, registry: string, extra = ''): string {
  return `auth: {provider: none}
control_plane: {tenant_url: "sqlite:///${registry}"${catalog ? `, catalog: ${catalog}` : ''}}
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}]}
${extra}roles:
  - {id: admin, capabilities: [admin], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development], domain_access: [sales]}
`;
}

describe('what an instance writes to the registry at start', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-ownership-'));
    writeFileSync(join(dir, 'orders.csv'), 'id,region\n1,eu\n2,us\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const start = async (text: string, errors: unknown[] = []) =>
    ShoalInstance.start({ config: loadConfig({ text }).config, baseDir: dir, mv: { tickMs: 0 }, hot: false, resultCache: false, onError: (e) => errors.push(e) });
  const rows = async (i: ShoalInstance) => {
    const r = await i.query({ sql: 'SELECT id FROM sales.orders ORDER BY id', role: 'analyst', vars: {} }, new AbortController().signal);
    const out: unknown[] = [];
    for await (const b of r.batches) out.push(...b.map((x) => x[0]));
    return out;
  };

  it('config mode is the default, and a rule deleted from the file is deleted from the registry at the next start (one epoch)', async () => {
    const a = await start(`${yaml(undefined, 'config-mode.db')}${RULE}`);
    expect(a.catalogOwner).toBe('config');
    expect(await rows(a)).toEqual([1]);
    const epoch = a.epoch!;
    await a.close();
    // before: import only added and updated, so the deleted rule stayed and the analyst still saw only eu
    const b = await start(yaml(undefined, 'config-mode.db'));
    expect(await rows(b)).toEqual([1, 2]);
    expect(b.epoch).toBe(epoch + 1);
    expect((await b.registry.snapshot()).catalog.rls_rules).toEqual([]);
    await b.close();
    // the same file again writes nothing
    const c = await start(yaml(undefined, 'config-mode.db'));
    expect(c.epoch).toBe(epoch + 1);
    await c.close();
  });

  it('config mode removes what was registered beside the file (the file is authoritative)', async () => {
    const a = await start(yaml('config', 'config-extra.db'));
    await a.close();
    const r = await openRegistry('sqlite:///config-extra.db', { baseDir: dir });
    await r.upsertRlsRule({ table_id: 'orders', role_id: 'analyst', filter: "region = 'us'" });
    await r.close();
    const b = await start(yaml('config', 'config-extra.db'));
    expect((await b.registry.snapshot()).catalog.rls_rules).toEqual([]);
    await b.close();
  });

  it('registry mode seeds an empty registry from the file once; later starts serve the registry and say the file differs', async () => {
    const a = await start(`${yaml('registry', 'registry-mode.db')}${RULE}`);
    expect(a.catalogOwner).toBe('registry');
    expect(a.epoch).toBe(1);
    // the admin API (here: the registry) changes the rule
    await a.registry.upsertRlsRule({ table_id: 'orders', role_id: 'analyst', filter: "region = 'us'" });
    await a.close();
    const errors: unknown[] = [];
    const b = await start(`${yaml('registry', 'registry-mode.db')}${RULE}`, errors);
    expect(b.epoch).toBe(2);
    expect(await rows(b)).toEqual([2]);
    expect(errors).toContainEqual(expect.objectContaining({ code: 'CATALOG_FILE_NOT_APPLIED', hint: expect.stringContaining('shoal registry apply') }));
    await b.close();
  });

  it('registry mode: concurrent first starts seed the registry once', async () => {
    const text = `${yaml('registry', 'registry-race.db')}${RULE}`;
    const all = await Promise.all([start(text), start(text), start(text)]);
    for (const i of all) expect(i.epoch).toBe(1);
    await Promise.all(all.map((i) => i.close()));
  });
});
