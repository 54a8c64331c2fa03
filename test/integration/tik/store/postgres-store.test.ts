import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { service } from '../../../support/service.js';
import { closeStore, openStore } from '../../../../src/tik/store/open-store.js';
import { PostgresStore, parsePostgresStoreUrl } from '../../../../src/tik/store/postgres/postgres-store.js';
import { describeEventStoreContract, eventBytesFor, idOf } from '../../../tik/store/event-store-contract.js';

const postgres = service('postgres');
const T = '018f2f6e-7c1a-7000-8000-000000000001';

let n = 0;
/** The service URL with a fresh schema for one store. */
function storeUrl(): string {
  const u = new URL(postgres.url!);
  u.searchParams.set('schema', `tik_contract_${process.pid}_${++n}`);
  return u.toString();
}

describe.skipIf(postgres.skip)('PostgreSQL store', () => {
  describeEventStoreContract('postgres', async () => {
    const url = storeUrl();
    const store = await PostgresStore.open(url);
    return {
      store,
      second: () => PostgresStore.open(url),
      cleanup: async () => {
        await store.drop();
        await store.close();
      },
    };
  });

  it('one schema per store: two schemas on one database do not see each other', async () => {
    const a = await PostgresStore.open(storeUrl());
    const b = await PostgresStore.open(storeUrl());
    try {
      const e = eventBytesFor(1);
      await a.append(T, idOf(e), e);
      expect(await a.ticketIds()).toEqual([T]);
      expect(await b.ticketIds()).toEqual([]);
    } finally {
      for (const s of [a, b]) {
        await s.drop();
        await s.close();
      }
    }
  });

  it('has the events/sidecars/files tables with bytea columns, bytes verbatim', async () => {
    const url = storeUrl();
    const s = await openStore(url);
    const { connect, schema } = parsePostgresStoreUrl(url);
    const client = new pg.Client({ connectionString: connect });
    await client.connect();
    try {
      expect(s.kind).toBe('postgres');
      const e = eventBytesFor(2);
      await s.append(T, idOf(e), e);
      const cols = await client.query(
        'SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, ordinal_position',
        [schema],
      );
      expect(cols.rows.map((r: { table_name: string; column_name: string; data_type: string }) => `${r.table_name}.${r.column_name}:${r.data_type}`)).toEqual([
        'events.id:text',
        'events.ticket:text',
        'events.bytes:bytea',
        'files.path:text',
        'files.bytes:bytea',
        'sidecars.name:text',
        'sidecars.ticket:text',
        'sidecars.bytes:bytea',
      ]);
      const row = await client.query(`SELECT bytes FROM "${schema}".events WHERE id = $1`, [idOf(e)]);
      expect(Buffer.from(row.rows[0].bytes as Buffer).equals(Buffer.from(e))).toBe(true);
    } finally {
      await client.end();
      await (s as PostgresStore).drop();
      await closeStore(s);
    }
  });

  it('stores opened on one URL share a pool: closing one leaves the others working', async () => {
    const url = storeUrl();
    const a = await PostgresStore.open(url);
    const b = await PostgresStore.open(url);
    const e = eventBytesFor(3);
    await a.append(T, idOf(e), e);
    await a.close();
    await a.close(); // closing twice is harmless and does not close b's pool
    expect(await b.hasEvent(T, idOf(e))).toBe(true);
    await b.drop();
    await b.close();
    const c = await PostgresStore.open(url); // a fresh pool, and the dropped schema is re-created
    try {
      expect(await c.ticketIds()).toEqual([]);
      expect(await c.append(T, idOf(e), e)).toBe(true);
    } finally {
      await c.drop();
      await c.close();
    }
  });

  it('a bad URL or an unreachable server is a clear store error', async () => {
    await expect(PostgresStore.open('postgresql://localhost/db?schema=Bad-Name')).rejects.toMatchObject({ code: 'store/bad-url' });
    await expect(PostgresStore.open('postgresql://nobody@127.0.0.1:1/none')).rejects.toMatchObject({ code: 'store/unavailable' });
  });
});
