/**
 * MVs over a tik store (the bridge), on a real tik file store and the real engine: an MV over the
 * log-derived tables (`facts`, `events`) is stamped with the store's event-set digest, so it is
 * refreshed exactly when events arrive; an MV over `tickets` (stages derive from `now`) has no
 * input signal and refreshes by its interval.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTik } from '../../../src/tik/cli/run.js';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { tikStoreDigest } from '../../../src/shoal/mv/tik-store-digest.js';
import { makeTikStore, type TikFixture } from '../engine/duckdb/tik-fixture.js';

describe('MVs over a tik store', () => {
  let tik: TikFixture;
  let dir: string;
  let instance: ShoalInstance;
  /** Append an event through the tik command (a later clock than the fixture's). */
  const setFact = async (ticket: string, assignment: string) => {
    const code = await runTik(['set', ticket, assignment], {
      out: () => undefined,
      err: () => undefined,
      env: { TIK_ROOT: tik.root, TIK_ACTOR: 'seb' },
      cwd: tik.root,
      clock: () => Date.parse('2026-02-01T00:00:00Z'),
      randomUuid: () => '00000000-0000-4000-8000-999999999999',
      osUser: () => 'seb',
      isTty: false,
    });
    expect(code).toBe(0);
  };

  beforeAll(async () => {
    tik = await makeTikStore();
    dir = mkdtempSync(join(tmpdir(), 'shoal-mv-tik-'));
    writeFileSync(
      join(dir, 'shoal.yaml'),
      `
domains: [{id: support}]
sources: [{id: support-tik, type: tik, path: ${tik.root}}]
tables:
  - source_id: support-tik
    domain_id: support
    table: facts
    columns: [{name: ticket, data_type: varchar}, {name: path, data_type: varchar}, {name: status, data_type: varchar}, {name: value, data_type: varchar}]
  - source_id: support-tik
    domain_id: support
    table: tickets
    columns: [{name: ticket, data_type: varchar}, {name: title, data_type: varchar}, {name: current, data_type: "varchar[]"}]
  - source_id: __derived__
    domain_id: support
    table: severities
    materialize: true
    view_sql: "SELECT value, count(*) AS n FROM support.facts WHERE path = 'severity' AND status = 'present' GROUP BY value"
    columns: [{name: value, data_type: varchar}, {name: n, data_type: bigint}]
  - source_id: __derived__
    domain_id: support
    table: titles
    materialize: true
    mv_refresh_interval: 3600
    view_sql: "SELECT ticket, title FROM support.tickets"
    columns: [{name: ticket, data_type: varchar}, {name: title, data_type: varchar}]
roles: [{id: admin, capabilities: [admin, full_results], domain_access: ["*"]}]
`,
    );
    instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0, resolveMaxAgeMs: 0 } });
  }, 120_000);
  afterAll(async () => {
    await instance?.close();
    tik?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an MV over facts is stamped with the store digest: refreshed once per event set, again when an event arrives', async () => {
    const mvs = instance.mvs!;
    const digest = await tikStoreDigest(tik.root);
    expect(digest).toMatch(/^[0-9a-f]{32}:\d+$/);
    expect(await mvs.refresh('support.severities')).toMatchObject({ outcome: 'refreshed' });
    expect(await mvs.row('support.severities')).toMatchObject({ materializedInputVersion: `tik_store:${digest}`, materializedInputVersionKind: 'tik_store' });
    expect(await mvs.refresh('support.severities')).toMatchObject({ outcome: 'skipped', reason: 'up_to_date' });
    expect(await mvs.candidates()).not.toContain('support.severities');

    await setFact(tik.tickets[0]!, 'severity=:low');
    const moved = await tikStoreDigest(tik.root);
    expect(moved).not.toBe(digest);
    expect(await mvs.candidates()).toContain('support.severities');
    expect(await mvs.refresh('support.severities')).toMatchObject({ outcome: 'refreshed' });
    const r = await instance.query({ sql: 'SELECT value, n FROM support.severities ORDER BY value', role: 'admin', vars: {} }, new AbortController().signal);
    const rows: unknown[][] = [];
    for await (const b of r.batches) rows.push(...b.map((x) => [...x]));
    // the fixture: ticket 1 :high → now :low, ticket 2 :low, ticket 3 retracted
    expect(rows).toEqual([[':low', 2]]);
  });

  it('an MV over tickets (stages derive from now) has no input signal: it refreshes by its interval', async () => {
    const mvs = instance.mvs!;
    expect(await mvs.versions(mvs.info('support.titles')!)).toMatchObject({ inputVersion: null });
    expect(await mvs.refresh('support.titles')).toMatchObject({ outcome: 'refreshed' });
    expect(await mvs.refresh('support.titles')).toMatchObject({ outcome: 'skipped', reason: 'not_due' });
  });
});
