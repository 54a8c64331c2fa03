/**
 * A registry deleted or replaced under an open handle is noticed before any write lands in it
 * (src/shoal/registry/registry-identity.ts): the handle refuses writes with REGISTRY_REPLACED
 * (503), its epoch reads fail the same way (the epoch watch and /health notice), and nothing is
 * written into a file nobody will read again.
 */
import { mkdtempSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlClient } from '../../../src/core/sql/open-sql-client.js';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { openRegistry } from '../../../src/shoal/registry/open-registry.js';
import type { Registry } from '../../../src/shoal/registry/registry.js';
import { httpStatusFor } from '../../../src/shoal/server/error-status.js';

const root = mkdtempSync(join(tmpdir(), 'shoal-registry-identity-'));
let n = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

const fresh = (): { dir: string; file: string; url: string } => {
  const dir = join(root, `r${++n}`);
  const file = join(dir, 'registry.db');
  return { dir, file, url: `sqlite:///${file}` };
};

const replacedError = async (p: Promise<unknown>) => {
  const e: unknown = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toMatchObject({ code: 'REGISTRY_REPLACED' });
  expect(httpStatusFor(e)).toBe(503);
  return e as Error;
};

const removeSidecars = (file: string) => {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
};

describe('the registry identity', () => {
  it('a deleted SQLite registry file refuses writes (REGISTRY_REPLACED, 503) and epoch reads', async () => {
    const { file, url } = fresh();
    const reg = await openRegistry(url);
    await reg.registerDomain({ id: 'sales' });
    unlinkSync(file);
    const e = await replacedError(reg.registerDomain({ id: 'ops' }));
    expect(e.message).toContain('deleted');
    await replacedError(reg.epoch());
    await reg.close();
  });

  it('a SQLite registry file replaced by a fresh registry (a peer created it) refuses writes; the peer keeps its own', async () => {
    const { file, url } = fresh();
    const a = await openRegistry(url);
    await a.registerDomain({ id: 'sales' });
    removeSidecars(file);
    const peer = await openRegistry(url); // a fresh registry at the same path
    await peer.registerDomain({ id: 'peer' });
    expect(peer.deploymentId).not.toBe(a.deploymentId);
    const e = await replacedError(a.registerDomain({ id: 'lost' }));
    expect(e.message).toContain('replaced');
    expect((await peer.snapshot()).catalog.domains.map((d) => d.id)).toEqual(['peer']);
    await a.close();
    await peer.close();
  });

  it('a file moved into place over the registry refuses writes', async () => {
    const one = fresh();
    const other = fresh();
    const a = await openRegistry(one.url);
    const b = await openRegistry(other.url);
    await b.close();
    renameSync(other.file, one.file);
    await replacedError(a.registerDomain({ id: 'lost' }));
    await a.close();
  });

  it('a registry whose deployment id changed (a dropped and recreated database) refuses writes', async () => {
    const { url } = fresh();
    const reg: Registry = await openRegistry(url);
    const raw = await openSqlClient(url);
    await raw.run("UPDATE registry_deployment SET deployment_id = 'another-deployment-0001' WHERE id = 1");
    await raw.close();
    const e = await replacedError(reg.registerDomain({ id: 'ops' }));
    expect(e.message).toContain('another-deployment-0001');
    await reg.close();
  });

  it('the untouched registry keeps accepting writes', async () => {
    const { url } = fresh();
    const reg = await openRegistry(url);
    await reg.registerDomain({ id: 'a' });
    expect((await reg.registerDomain({ id: 'b' })).changed).toBe(true);
    expect(await reg.epoch()).toBe(2);
    await reg.close();
  });

  it("an instance whose registry file was deleted reports the registry as 'replaced' in its health", async () => {
    const { dir, file } = fresh();
    const { config } = loadConfig(`control_plane: {tenant_url: "sqlite:///registry.db"}
domains: [{id: sales}]
roles: [{id: analyst, capabilities: [query_development], domain_access: [sales]}]
`);
    const instance = await ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000, mv: { tickMs: 0 }, hot: false, resultCache: false });
    try {
      expect(await instance.health()).toMatchObject({ status: 'ok', dependencies: { registry: 'ok' } });
      unlinkSync(file);
      expect(await instance.health()).toMatchObject({ status: 'degraded', dependencies: { registry: 'replaced' } });
      await replacedError(instance.registry.registerDomain({ id: 'ops' }));
    } finally {
      await instance.close();
    }
  });
});
