import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AUDIT_METRICS, AuditQueue } from '../../../src/shoal/audit/audit-queue.js';
import type { AuditRecord } from '../../../src/shoal/audit/audit-record.js';
import { MetricsRegistry } from '../../../src/shoal/server/metrics.js';
import { openAuditStoreAt } from '../../support/audit-store.js';

const dir = mkdtempSync(join(tmpdir(), 'shoal-audit-queue-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const record = (i: number): AuditRecord => ({
  at: 1_700_000_000_000 + i,
  instance: 'test:1:ab',
  principal: i % 2 === 0 ? 'anonymous' : 'user:alice',
  role: 'analyst',
  method: 'POST',
  path: '/data/sql',
  status: 200,
  outcome: 'ok',
  sql_fingerprint: `sha256:${String(i).padStart(64, '0')}`,
  tables: ['sales.orders'],
  route: 'engine',
  rows: i,
  duration_ms: 1,
});

describe('the audit queue', () => {
  it('writes records in batches to the audit_log table and reads them back newest first, filtered', async () => {
    const store = await openAuditStoreAt(`sqlite:///${join(dir, 'ok.db')}`);
    const metrics = new MetricsRegistry();
    const queue = new AuditQueue(store, { capacity: 100, batchSize: 3, metrics });
    for (let i = 0; i < 10; i++) queue.record(record(i));
    await queue.flush();
    expect(metrics.value(AUDIT_METRICS.written)).toBe(10);
    const all = await store.list({ limit: 100 });
    expect(all.map((r) => r.rows)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(all[0]).toMatchObject({ ...record(9), tables: ['sales.orders'] });
    const alice = await store.list({ principal: 'user:alice', limit: 2 });
    expect(alice.map((r) => r.rows)).toEqual([9, 7]);
    expect((await store.list({ principal: 'user:alice', before: alice[1]!.id, limit: 10 })).map((r) => r.rows)).toEqual([5, 3, 1]);
    expect((await store.list({ since: record(8).at, limit: 10 })).map((r) => r.rows)).toEqual([9, 8]);
    await queue.close();
    await store.close();
  });

  it('a registry that is stuck does not block record() or grow memory beyond the bound; drops are counted, and the backlog is written once it recovers', async () => {
    const path = join(dir, 'stuck.db');
    const store = await openAuditStoreAt(`sqlite:///${path}`);
    // another connection holds the database's write lock: every audit write waits (SQLITE_BUSY, retried)
    const holder = new Database(path);
    holder.exec('BEGIN EXCLUSIVE');
    const metrics = new MetricsRegistry();
    const queue = new AuditQueue(store, { capacity: 50, batchSize: 10, metrics });
    for (let i = 0; i < 500; i++) queue.record(record(i)); // synchronous: returns at once with the writer stuck
    expect(queue.depth).toBe(50);
    expect(queue.dropped).toBe(450);
    expect(metrics.value(AUDIT_METRICS.dropped)).toBe(450);
    expect(metrics.value(AUDIT_METRICS.depth)).toBe(50);
    expect(metrics.render()).toContain('shoal_audit_dropped_total 450');
    holder.exec('COMMIT');
    holder.close();
    await queue.flush();
    expect(queue.depth).toBe(0);
    expect((await store.list({ limit: 1000 })).length).toBe(50);
    await queue.close();
    await store.close();
  });

  it('a registry that is down keeps the batch for a retry, counting the failure', async () => {
    const path = join(dir, 'down.db');
    const store = await openAuditStoreAt(`sqlite:///${path}`);
    const holder = new Database(path);
    holder.exec('DROP TABLE audit_log'); // the write fails outright (no such table)
    const metrics = new MetricsRegistry();
    const queue = new AuditQueue(store, { capacity: 10, batchSize: 5, metrics, retryMs: 60_000 });
    queue.record(record(1));
    await expect(queue.flush()).rejects.toThrow();
    expect(metrics.value(AUDIT_METRICS.failures)).toBeGreaterThanOrEqual(1);
    expect(queue.depth).toBe(1);
    holder.close();
    await queue.close();
    await store.close();
  });
});
