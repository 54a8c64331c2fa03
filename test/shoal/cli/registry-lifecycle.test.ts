/**
 * The declarative lifecycle through the compiled CLI: `shoal registry plan|apply --config F`, and
 * `shoal query --config F`, a read that never writes the registry (it reads the registry F names
 * when that registry holds a catalog, and otherwise builds the catalog from F in memory).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRegistry } from '../../../src/shoal/registry/open-registry.js';
import { distBin } from '../../support/processes.js';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function shoal(cwd: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [distBin('shoal'), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const config = (filter: string | undefined, extraTable = '') => `auth: {provider: none}
control_plane: {tenant_url: "sqlite:///registry.db"}
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}]}
${extraTable}roles:
  - {id: analyst, capabilities: [query_development], domain_access: [sales]}
${filter ? `rls_rules:\n  - {table_id: orders, role_id: analyst, filter: "${filter}"}\n` : ''}`;

describe('shoal registry plan|apply and a read-only shoal query', () => {
  let dir: string;
  const ids = async (file: string) => {
    const r = await shoal(dir, 'query', '--config', file, '--role', 'analyst', '--json', 'SELECT id FROM sales.orders ORDER BY id');
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { rows: number[][] }).rows.map((x) => x[0]);
  };
  const registry = async () => {
    const r = await openRegistry('sqlite:///registry.db', { baseDir: dir });
    try {
      return await r.snapshot();
    } finally {
      await r.close();
    }
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-lifecycle-cli-'));
    writeFileSync(join(dir, 'orders.csv'), 'id,region\n1,eu\n2,us\n3,eu\n');
    writeFileSync(join(dir, 'eu.yaml'), config("region = 'eu'"));
    writeFileSync(join(dir, 'us.yaml'), config("region = 'us'"));
    writeFileSync(join(dir, 'open.yaml'), config(undefined));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('with no registry yet, query builds the catalog from the file in memory and creates no registry; plan creates none either', async () => {
    expect(await ids('eu.yaml')).toEqual([1, 3]);
    expect(existsSync(join(dir, 'registry.db'))).toBe(false);
    const plan = await shoal(dir, 'registry', 'plan', '--config', 'eu.yaml', '--json');
    expect(plan.code, plan.stderr).toBe(0);
    const out = JSON.parse(plan.stdout) as { epoch: number; entries: { kind: string; id: string; action: string }[]; summary: Record<string, number> };
    expect(out.epoch).toBe(0);
    expect(out.entries).toContainEqual({ kind: 'rls_rule', id: 'table orders role analyst', action: 'add' });
    expect(out.summary).toEqual({ add: 5, change: 0, delete: 0 });
    expect(existsSync(join(dir, 'registry.db'))).toBe(false);
  }, 400_000);

  it('apply writes the file into the registry in one epoch; a second apply changes nothing', async () => {
    const first = await shoal(dir, 'registry', 'apply', '--config', 'eu.yaml', '--json');
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ changed: true, epoch: 1, previous_epoch: 0, summary: { add: 5, change: 0, delete: 0 } });
    const again = await shoal(dir, 'registry', 'apply', '--config', 'eu.yaml');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('no changes');
    expect((await registry()).epoch).toBe(1);
  }, 400_000);

  it('a one-off query with an edited RLS rule reads the registry and writes nothing to it (it used to import the file)', async () => {
    // before: `shoal query --config us.yaml` imported us.yaml, so the fleet's analyst rule became "us"
    expect(await ids('us.yaml')).toEqual([1, 3]);
    const after = await registry();
    expect(after.epoch).toBe(1);
    expect(after.catalog.rls_rules).toEqual([{ table_id: 'orders', role_id: 'analyst', filter: "region = 'eu'" }]);
    // a person is told the file was not what was served
    const human = await shoal(dir, 'query', '--config', 'us.yaml', '--role', 'analyst', 'SELECT id FROM sales.orders');
    expect(human.code).toBe(0);
    expect(human.stderr).toContain('differs from us.yaml in 1 object(s)');
    expect((await registry()).epoch).toBe(1);
  }, 400_000);

  it('plan shows a change, apply carries it out; a deleted rule is deleted; --expected-epoch refuses a stale apply', async () => {
    const plan = await shoal(dir, 'registry', 'plan', '--config', 'us.yaml');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('0 to add, 1 to change, 0 to delete');
    expect(plan.stdout).toContain('~ rls_rule table orders role analyst');
    const stale = await shoal(dir, 'registry', 'apply', '--config', 'us.yaml', '--expected-epoch', '0');
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('REGISTRY_EPOCH_MISMATCH');
    expect((await registry()).epoch).toBe(1);
    const applied = await shoal(dir, 'registry', 'apply', '--config', 'us.yaml', '--expected-epoch', '1');
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('epoch 1 -> 2');
    expect(await ids('us.yaml')).toEqual([2]);
    // the rule deleted from the file is deleted from the registry
    const open = await shoal(dir, 'registry', 'apply', '--config', 'open.yaml', '--json');
    expect(JSON.parse(open.stdout)).toMatchObject({ changed: true, epoch: 3, entries: [{ kind: 'rls_rule', id: 'table orders role analyst', action: 'delete' }] });
    expect(await ids('open.yaml')).toEqual([1, 2, 3]);
    expect((await registry()).catalog.rls_rules).toEqual([]);
    expect((await shoal(dir, 'registry', 'apply', '--config', 'open.yaml', '--expected-epoch', 'x')).code).toBe(2);
  }, 400_000);
});
