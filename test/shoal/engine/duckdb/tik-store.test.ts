import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDbEngine } from '../../../../src/shoal/engine/duckdb/duckdb-engine.js';
import type { CatalogEntry } from '../../../../src/shoal/engine/catalog-entry.js';
import type { LandingReport } from '../../../../src/shoal/engine/engine.js';
import type { ShoalError } from '../../../../src/shoal/errors.js';
import { collect, entry } from './engine-fixtures.js';
import { makeTikStore, TIK_START, type TikFixture } from './tik-fixture.js';

const HOUR = 3_600_000;
let tik: TikFixture;
let now = TIK_START + 2 * HOUR;
let engine: DuckDbEngine;
let entries: CatalogEntry[];

interface StatusJson {
  ticket: string;
  title: string;
  process: { id: string; version: number; hash: string };
  current: string[];
  reached: string[];
  facts: Record<string, { status: string; value?: string; by?: string; at?: string }>;
}

beforeAll(async () => {
  tik = await makeTikStore();
  const source = { id: 'board', type: 'tik', path: tik.root };
  entries = ['tickets', 'facts', 'events'].map((table) => entry(source, { domain_id: 'work', table }));
  engine = await DuckDbEngine.create({ clock: () => now });
  expect((await engine.reconcile(entries)).failed).toEqual([]);
});
afterAll(async () => {
  await engine?.close();
  tik?.cleanup();
});

const iso = (ts: string | null): string | null => (ts === null ? null : new Date(ts.replace(' ', 'T') + 'Z').toISOString().replace('.000Z', 'Z'));

describe('a tik store as a source', () => {
  it('tickets carry exactly what `tik status --json` derives: title, process, current and reached stages', async () => {
    const r = await collect(engine.execute('SELECT * FROM work.tickets ORDER BY ticket'));
    expect(r.columns).toEqual([
      { name: 'ticket', type: 'VARCHAR' },
      { name: 'title', type: 'VARCHAR' },
      { name: 'process', type: 'VARCHAR' },
      { name: 'process_version', type: 'INTEGER' },
      { name: 'process_hash', type: 'VARCHAR' },
      { name: 'current', type: 'VARCHAR[]' },
      { name: 'reached', type: 'VARCHAR[]' },
      { name: 'created_at', type: 'TIMESTAMP' },
      { name: 'created_by', type: 'VARCHAR' },
    ]);
    expect(r.rows.map((x) => x[0])).toEqual([...tik.tickets].sort());
    for (const row of r.rows) {
      const st = (await tik.json(['status', row[0] as string], now)) as StatusJson;
      expect(row.slice(0, 7)).toEqual([st.ticket, st.title, st.process.id, st.process.version, st.process.hash, st.current, st.reached]);
      expect(row[8]).toBe('seb');
    }
    expect(r.rows.map((x) => x[1])).toContain("Quote ' and ünïcode");
  });

  it('stages are derived at the engine clock: after 48h an uncategorised ticket has escalated', async () => {
    const q = "SELECT title, current FROM work.tickets WHERE list_contains(reached, ':escalated') ORDER BY title";
    expect((await collect(engine.execute(q))).rows).toEqual([]);
    now = TIK_START + 72 * HOUR;
    try {
      const late = await collect(engine.execute(q));
      const expected: unknown[][] = [];
      for (const t of tik.tickets) {
        const st = (await tik.json(['status', t], now)) as StatusJson;
        if (st.reached.includes(':escalated')) expected.push([st.title, st.current]);
      }
      // The uncategorised ticket, and the one whose category is disputed.
      expect(expected.map((x) => x[0])).toEqual(['Locked out', "Quote ' and ünïcode"]);
      expect(late.rows).toEqual(expected.sort((a, b) => String(a[0]).localeCompare(String(b[0]))));
    } finally {
      now = TIK_START + 2 * HOUR;
    }
  });

  it('facts carry the status, canonical value, author and time `tik status --json` reports', async () => {
    const r = await collect(engine.execute('SELECT ticket, path, status, value, "by", "at"::VARCHAR FROM work.facts ORDER BY ticket, path'));
    const expected: unknown[][] = [];
    for (const t of [...tik.tickets].sort()) {
      const st = (await tik.json(['status', t], now)) as StatusJson;
      for (const [path, f] of Object.entries(st.facts).sort(([a], [b]) => (a < b ? -1 : 1))) {
        expected.push([t, path, f.status, f.value ?? null, f.by ?? null, f.at ?? null]);
      }
    }
    expect(r.rows.map((x) => [...x.slice(0, 5), iso(x[5] as string | null)])).toEqual(expected);
    expect(new Set(r.rows.map((x) => x[2]))).toEqual(new Set(['present', 'retracted', 'disputed']));
    expect(r.rows).toContainEqual([tik.tickets[1], 'resolution.ref', 'present', '"abc12345"', 'seb', expect.any(String)]);
  });

  it('events list every admitted event with its type, actor, time and parents', async () => {
    const r = await collect(engine.execute('SELECT ticket, id, type, actor, parents FROM work.events ORDER BY ticket, "at", id'));
    const log = (await tik.json(['log', tik.tickets[3] as string], now)) as unknown;
    const four = r.rows.filter((x) => x[0] === tik.tickets[3]);
    expect(four.map((x) => [x[2], x[3]])).toEqual([
      [':ticket/create', 'seb'],
      [':fact/assert', 'seb'],
      [':fact/dispute', 'billing'],
    ]);
    expect(JSON.stringify(log)).toContain(four[2]?.[1] as string);
    // Each event after the first names its predecessor as a parent.
    expect(four[1]?.[4]).toEqual([four[0]?.[1]]);
    expect(four[2]?.[4]).toEqual([four[1]?.[1]]);
    expect(new Set(r.rows.map((x) => x[0]))).toEqual(new Set(tik.tickets));
  });

  it('a pushed-down ticket predicate reads only that ticket\'s log', async () => {
    const reports: LandingReport[] = [];
    const t = tik.tickets[1] as string;
    const r = await collect(
      engine.execute('SELECT count(*)::INTEGER FROM work.events WHERE ticket = $1', {
        params: [t],
        pushdown: [{ table: { sourceId: 'board', schema: 'default', table: 'events' }, predicates: [{ column: 'ticket', op: '=', value: t }] }],
        onLanding: (x) => reports.push(x),
      }),
    );
    expect(r.rows).toEqual([[4]]);
    expect(reports[0]?.rowsFetched).toBe(4);
    expect(reports[0]?.sourceSql).toBe(`tik events WHERE ticket IN (${t})`);
  });

  it('joins tickets with their facts by SQL', async () => {
    const r = await collect(
      engine.execute(`SELECT t.title, f.value FROM work.tickets t JOIN work.facts f USING (ticket)
        WHERE f.path = 'category' AND f.status = 'present' ORDER BY t.title`),
    );
    expect(r.rows).toEqual([
      ['Printer on fire', ':technical'],
      ['Refund please', ':billing'],
    ]);
  });

  it('a ticket whose definition cannot be resolved is listed with its pin and no stages, never failing the board', async () => {
    const other = await makeTikStore();
    const engine2 = await DuckDbEngine.create({ clock: () => now });
    try {
      rmSync(join(other.root, 'processes'), { recursive: true, force: true });
      mkdirSync(join(other.root, 'processes', 'by-hash'), { recursive: true });
      await engine2.reconcile([entry({ id: 'board', type: 'tik', path: other.root }, { domain_id: 'work', table: 'tickets' })]);
      const r = await collect(engine2.execute('SELECT title, process, process_version, current, reached FROM work.tickets ORDER BY ticket'));
      expect(r.rows).toEqual([
        ['Printer on fire', ':support-request', 1, null, null],
        ['Refund please', ':support-request', 1, null, null],
        ['Locked out', ':support-request', 1, null, null],
        ["Quote ' and ünïcode", ':support-request', 1, null, null],
      ]);
    } finally {
      await engine2.close();
      other.cleanup();
    }
  });

  it('a store root that is gone is SOURCE_UNAVAILABLE naming the source', async () => {
    const moved = `${tik.root}.moved`;
    renameSync(tik.root, moved);
    try {
      let err: unknown;
      try {
        await collect(engine.execute('SELECT * FROM work.tickets'));
      } catch (e) {
        err = e;
      }
      expect((err as ShoalError).code).toBe('SOURCE_UNAVAILABLE');
      expect((err as ShoalError).message).toContain('"board"');
      expect((await engine.health('board')).code).toBe('SOURCE_UNAVAILABLE');
    } finally {
      renameSync(moved, tik.root);
    }
    expect((await engine.health('board')).ok).toBe(true);
  });

  it('a table a tik store does not have is SOURCE_QUERY_FAILED with the list of tables', async () => {
    const engine2 = await DuckDbEngine.create();
    try {
      await engine2.reconcile([entry({ id: 'board', type: 'tik', path: tik.root }, { domain_id: 'work', table: 'stages' })]);
      let err: unknown;
      try {
        await collect(engine2.execute('SELECT * FROM work.stages'));
      } catch (e) {
        err = e;
      }
      expect((err as ShoalError).code).toBe('SOURCE_QUERY_FAILED');
      expect((err as ShoalError).hint).toContain('tickets, facts, events');
    } finally {
      await engine2.close();
    }
  });
});
