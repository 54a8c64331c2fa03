/**
 * The registry contract against a real PostgreSQL, plus what only PostgreSQL has: LISTEN/NOTIFY as the
 * fast path of the epoch watcher, with NOTIFY sent inside the mutation's transaction.
 * Each test gets its own database (created here, dropped at the end of the file).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresClient } from '../../../../src/core/sql/postgres-client.js';
import { openSqlClient } from '../../../../src/core/sql/open-sql-client.js';
import { openRegistry } from '../../../../src/shoal/registry/open-registry.js';
import { watchEpoch } from '../../../../src/shoal/registry/watch-epoch.js';
import { service } from '../../../support/service.js';
import { catalogArbitrary } from '../../../shoal/registry/catalog-arbitrary.js';
import { ManualTimer } from '../../../shoal/registry/manual-timer.js';
import { applyContract } from '../../../shoal/registry/apply-contract.js';
import { fleetCatalog, registryContract } from '../../../shoal/registry/registry-contract.js';

const postgres = service('postgres');
const prefix = `shoal_reg_${process.pid}_${Date.now().toString(36)}`;
const created: string[] = [];
let admin: pg.Client | undefined;

function urlFor(database: string): string {
  const u = new URL(postgres.url!);
  u.pathname = `/${database}`;
  return u.toString();
}

async function freshDatabase(): Promise<string> {
  if (!admin) {
    admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
  }
  const name = `${prefix}_${created.length + 1}`;
  await admin.query(`CREATE DATABASE ${name}`);
  created.push(name);
  return urlFor(name);
}

afterAll(async () => {
  if (!admin) return;
  for (const name of created) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
  await admin.end();
});

describe.skipIf(postgres.skip)('PostgreSQL registry', () => {
  registryContract('PostgreSQL', {
    freshUrl: freshDatabase,
    raw: (url) => openSqlClient(url),
    installFailingTrigger: async (raw) => {
      await raw.exec(`
        CREATE FUNCTION explode() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.filter = 'explode' THEN RAISE EXCEPTION 'explode'; END IF; RETURN NEW; END $$;
        CREATE TRIGGER explode BEFORE INSERT ON rls_rules FOR EACH ROW EXECUTE FUNCTION explode();`);
    },
    runs: 6,
  });
  applyContract('PostgreSQL', { freshUrl: freshDatabase, runs: 4 });

  describe('LISTEN/NOTIFY fast path', () => {
    let url: string;
    beforeAll(async () => {
      url = await freshDatabase();
    });

    it('a mutation through handle A wakes the watcher on handle B without any timer firing', async () => {
      const a = await openRegistry(url);
      const b = await openRegistry(url);
      const timer = new ManualTimer();
      try {
        expect(b.subscribe).toBeDefined();
        let resolve!: (e: number) => void;
        const changed = new Promise<number>((r) => (resolve = r));
        const w = await watchEpoch(b, { timer }, (e) => resolve(e));
        const before = await a.epoch();
        const res = await a.importConfig(fleetCatalog());
        expect(await changed).toBe(res.epoch);
        expect(res.epoch).toBe(before + 1);
        expect(timer.scheduled).toEqual([2000]); // the poll timer never fired
        await w.stop();
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('NOTIFY is transactional: a refused mutation sends nothing, a committed one sends its epoch', async () => {
      const a = await openRegistry(url);
      await a.importConfig(fleetCatalog());
      const listener = await openPostgresClient(url);
      const payloads: string[] = [];
      let got!: () => void;
      const arrived = new Promise<void>((r) => (got = r));
      const stop = await listener.listen('shoal_config_epoch', (p) => {
        payloads.push(p);
        got();
      });
      try {
        const start = await a.epoch();
        await expect(a.dropSource('no-such-source')).rejects.toMatchObject({ code: 'REGISTRY_NOT_FOUND' });
        await expect(a.registerSource({ id: 'bad', type: 'postgresql', host: 'h', password: 'plain' })).rejects.toMatchObject({ code: 'REGISTRY_PLAINTEXT_SECRET' });
        expect((await a.importConfig(fleetCatalog())).changed).toBe(false); // a no-op: no NOTIFY
        const res = await a.registerDomain({ id: 'notified' });
        await arrived;
        // the first (and only) notification is the committed mutation's epoch
        expect(payloads).toEqual([String(res.epoch)]);
        expect(res.epoch).toBe(start + 1);
      } finally {
        await stop();
        await listener.close();
        await a.close();
      }
    });

    it('a database that is down is a clear REGISTRY_UNAVAILABLE, without the password', async () => {
      const u = new URL(postgres.url!);
      u.password = 'sekrit-pw';
      u.port = '1';
      await expect(openRegistry(u.toString())).rejects.toMatchObject({
        code: 'REGISTRY_UNAVAILABLE',
        message: expect.not.stringContaining('sekrit-pw'),
      });
    });
  });
});

describe.skipIf(postgres.skip)('one contract, two dialects', () => {
  it('law: the same mutations give the same snapshot and epoch on SQLite and on PostgreSQL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-parity-'));
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(catalogArbitrary(), { minLength: 1, maxLength: 3 }), fc.boolean(), async (catalogs, prune) => {
          const lite = await openRegistry(`sqlite:///${join(dir, `p${++n}.db`)}`);
          const pgr = await openRegistry(await freshDatabase());
          try {
            for (const c of catalogs) {
              const [a, b] = await Promise.all([lite.importConfig(c, { prune }), pgr.importConfig(c, { prune })]);
              expect(b).toEqual(a);
            }
            const [sa, sb] = await Promise.all([lite.snapshot(), pgr.snapshot()]);
            expect(sb).toEqual(sa);
            // and in the same order, entry by entry
            expect(JSON.stringify(sb.catalog)).toBe(JSON.stringify(sa.catalog));
          } finally {
            await lite.close();
            await pgr.close();
          }
        }),
        { numRuns: 6 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
