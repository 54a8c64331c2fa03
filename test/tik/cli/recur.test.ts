import { copyFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { periodStart, recurTicketId } from '../../../src/tik/app/recur-period.js';
import { cleanup, CONFORMANCE, json, snapshot, tempDir, tik } from './harness.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});

async function trackStore(): Promise<string> {
  const d = tempDir('tik-recur-');
  dirs.push(d);
  await tik(d, ['init']);
  copyFileSync(join(CONFORMANCE, 'processes/track.edn'), join(d, 'processes/track.edn'));
  return d;
}

describe('tik recur (§9)', () => {
  it('mints the spec\'s example bytes for track 2026-W29 as tik-backend', async () => {
    const d = await trackStore();
    const r = json<{ ticket: string; created: boolean; events: string[] }>(
      await tik(d, ['--actor', 'tik-backend', 'recur', 'track', '--period', '2026-W29', '--json']),
    );
    expect(r).toEqual({
      ticket: '3b7b65b4-2a5e-374d-83d6-17fef995bbd2',
      created: true,
      events: [
        'sha256-99cc8358eaccf24cafba5c6edb9fd84b8081a7815e0379688ae9b6e6be8e689d',
        'sha256-777e3d81f5d1d47360ad7d187956dc1e3861e74943a70e73b98b02e06ad85e04',
      ],
    });
    const files = readdirSync(join(d, 'tickets', r.ticket, 'events')).sort();
    expect(files).toEqual(r.events.map((e) => `${e}.edn`).sort());
    expect(readdirSync(join(d, 'processes/by-hash'))).toEqual([
      'sha256-5812cdba533c92d934af16c73fe4027fc37bd034e6005f56237358680037d3c3.edn',
    ]);
    const s = json<{ title: string; facts: Record<string, { value: string }>; reached: string[] }>(await tik(d, ['status', r.ticket, '--json']));
    expect(s.title).toBe('track 2026-W29');
    expect(s.facts.period!.value).toBe('"2026-W29"');
    expect(s.reached).toEqual([':open']);
  });

  it('is a no-op when a ticket of the process already has the period', async () => {
    const d = await trackStore();
    const first = await tik(d, ['recur', 'track', '--period', '2026-07']);
    const before = snapshot(d);
    const again = await tik(d, ['recur', 'track', '--period', '2026-07']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`already have ${first.stdout.trim()} for track 2026-07\n`);
    expect(snapshot(d)).toEqual(before);
  });

  it('independent stores mint byte-identical events (coordination-free, T5)', async () => {
    const a = await trackStore();
    const b = await trackStore();
    await tik(a, ['recur', 'track', '--period', '2026-Q3'], { TIK_NOW: '2026-09-01T00:00:00Z' });
    await tik(b, ['recur', 'track', '--period', '2026-Q3'], { TIK_NOW: '2027-01-01T12:34:56Z' });
    const tickets = (d: string) => snapshot(join(d, 'tickets'));
    expect(tickets(a)).toEqual(tickets(b));
    expect(Object.keys(tickets(a))).toHaveLength(2);
  });

  it('a free-form label needs --at; out-of-range components are refused; nothing is written', async () => {
    const d = await trackStore();
    const before = snapshot(d);
    const free = await tik(d, ['recur', 'track', '--period', 'sprint-7']);
    expect(free.code).toBe(2);
    expect(free.stderr).toMatch(/free-form period: give its instant with --at/);
    for (const label of ['2026-Q5', '2026-13', '2026-02-30', '2026-W54', '2025-W53']) {
      const r = await tik(d, ['recur', 'track', '--period', label]);
      expect(r.code, label).toBe(2);
      expect(r.stderr).toMatch(/out of range/);
    }
    expect(snapshot(d)).toEqual(before);
    const ok = json<{ ticket: string }>(await tik(d, ['recur', 'track', '--period', 'sprint-7', '--at', '2026-03-02T09:00:00Z', '--json']));
    const create = readdirSync(join(d, 'tickets', ok.ticket, 'events')).map((f) => readFileSync(join(d, 'tickets', ok.ticket, 'events', f), 'utf8'));
    expect(create.every((t) => t.includes('#inst "2026-03-02T09:00:00Z"'))).toBe(true);
  });
});

describe('period labels', () => {
  it('start at the UTC start of the period', () => {
    const iso = (label: string) => new Date(periodStart(label)!).toISOString();
    expect(iso('2026')).toBe('2026-01-01T00:00:00.000Z');
    expect(iso('2026-Q3')).toBe('2026-07-01T00:00:00.000Z');
    expect(iso('2026-02')).toBe('2026-02-01T00:00:00.000Z');
    expect(iso('2024-02-29')).toBe('2024-02-29T00:00:00.000Z');
    expect(iso('2026-W29')).toBe('2026-07-13T00:00:00.000Z');
    expect(iso('2026-W01')).toBe('2025-12-29T00:00:00.000Z');
    expect(iso('2020-W53')).toBe('2020-12-28T00:00:00.000Z');
    expect(periodStart('sprint-7')).toBeUndefined();
  });

  it('an ISO week always starts on a Monday within a week of its label\'s year (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1971, max: 2400 }), fc.integer({ min: 1, max: 52 }), (year, week) => {
        const ms = periodStart(`${year}-W${String(week).padStart(2, '0')}`)!;
        const d = new Date(ms);
        expect(d.getUTCDay()).toBe(1);
        expect(ms).toBeGreaterThanOrEqual(Date.UTC(year - 1, 11, 29));
        expect(ms).toBeLessThan(Date.UTC(year + 1, 0, 1));
      }),
    );
  });

  it('the ticket id is Java\'s nameUUIDFromBytes (version 3, no namespace)', () => {
    expect(recurTicketId('track', '2026-W29')).toBe('3b7b65b4-2a5e-374d-83d6-17fef995bbd2');
    fc.assert(
      fc.property(fc.string(), fc.string(), (p, l) => {
        expect(recurTicketId(p, l)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      }),
    );
  });
});
