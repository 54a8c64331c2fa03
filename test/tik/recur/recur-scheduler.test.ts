import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recurTicketId } from '../../../src/tik/app/recur-period.js';
import { periodLabel } from '../../../src/tik/recur/period-label.js';
import type { Recurrence } from '../../../src/tik/recur/recurrence.js';
import { buildTikServer, type TikServer } from '../../../src/tik/server/index.js';
import { shardOf } from '../../../src/tik/shard/shard-spec.js';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { localTransport, syncWith } from '../../../src/tik/sync/index.js';
import { CONFORMANCE, cleanup, snapshot, supportStore, tik } from '../cli/harness.js';

const dirs: string[] = [];
const servers: TikServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  dirs.forEach(cleanup);
});

const TRACK_WEEKLY: Recurrence = { process: 'track', cadence: 'weekly', actor: 'tik-backend' };
const SUPPORT_MONTHLY: Recurrence = { process: 'support-request', cadence: 'monthly', actor: 'tik-backend', title: 'monthly review' };

async function replica(recurrences: readonly Recurrence[], clock: () => number, shard?: { index: number; count: number }): Promise<{ dir: string; server: TikServer }> {
  const dir = await supportStore();
  dirs.push(dir);
  copyFileSync(join(CONFORMANCE, 'processes/track.edn'), join(dir, 'processes/track.edn'));
  // a real clock in the verbs (no TIK_NOW): the minted bytes must not depend on it
  const server = await buildTikServer({ root: dir, store: await openFileStore(dir), env: { HOME: dir }, recur: { recurrences, clock }, ...(shard ? { shard } : {}) });
  servers.push(server);
  return { dir, server };
}

const tickets = (dir: string): Record<string, string> => Object.fromEntries(Object.entries(snapshot(dir)).filter(([k]) => k.startsWith('tickets/')));

describe('recurrence scheduler', () => {
  it('two independent stores firing the same schedule mint byte-identical events, once per period', async () => {
    let now = Date.parse('2026-07-15T09:30:00Z');
    const clock = (): number => now;
    const a = await replica([TRACK_WEEKLY, SUPPORT_MONTHLY], clock);
    const b = await replica([TRACK_WEEKLY, SUPPORT_MONTHLY], clock);
    for (const r of [a, b]) {
      const fired = await r.server.recur!.tick();
      expect(fired.map((f) => [f.process, f.label, f.outcome])).toEqual([
        ['track', '2026-W29', { ok: true, created: true }],
        ['support-request', '2026-07', { ok: true, created: true }],
      ]);
    }
    const files = tickets(a.dir);
    expect(Object.keys(files)).toHaveLength(4); // two tickets × (create + period fact)
    expect(Object.keys(files).some((f) => f.includes(recurTicketId('track', '2026-W29')))).toBe(true);
    expect(tickets(b.dir)).toEqual(files);

    // the same period again: nothing to do; sync of the two stores moves nothing (already one copy)
    expect(await a.server.recur!.tick()).toEqual([]);
    const report = await syncWith(await openFileStore(a.dir), localTransport(await openFileStore(b.dir)));
    expect(report).toMatchObject({ rounds: 1, need: 0, have: 0, pulled: 0, pushed: 0 });

    // the next week opens the next period (the month is unchanged)
    now = Date.parse('2026-07-20T00:00:00Z');
    expect((await a.server.recur!.tick()).map((f) => f.label)).toEqual(['2026-W30']);
    expect((await b.server.recur!.tick()).map((f) => f.label)).toEqual(['2026-W30']);
    expect(tickets(b.dir)).toEqual(tickets(a.dir));
    const status = JSON.parse((await tik(a.dir, ['status', recurTicketId('track', '2026-W30'), '--json'])).stdout) as { title: string; facts: Record<string, { value: string }> };
    expect(status.title).toBe('track 2026-W30');
    expect(status.facts.period!.value).toBe('"2026-W30"');
  });

  it('is a no-op for a period whose ticket exists, and retries a failing recurrence on the next tick', async () => {
    const now = Date.parse('2026-07-15T09:30:00Z');
    const a = await replica([TRACK_WEEKLY, { process: 'no-such-process', cadence: 'daily', actor: 'x' }], () => now);
    expect((await tik(a.dir, ['--actor', 'tik-backend', 'recur', 'track', '--period', '2026-W29'])).code).toBe(0);
    const before = tickets(a.dir);
    const first = await a.server.recur!.tick();
    expect(first.map((f) => [f.process, f.outcome.ok, f.outcome.created])).toEqual([
      ['track', true, false],
      ['no-such-process', false, false],
    ]);
    expect(first[1]!.outcome.message).toMatch(/no process definition processes\/no-such-process\.edn/);
    expect(tickets(a.dir)).toEqual(before);
    expect((await a.server.recur!.tick()).map((f) => f.process)).toEqual(['no-such-process']);
  });

  it('on a sharded replica fires only the periods whose ticket its shard owns', async () => {
    const now = Date.parse('2026-07-15T09:30:00Z');
    const labels = ['daily', 'weekly', 'monthly', 'quarterly', 'yearly'] as const;
    const rs = labels.map((cadence): Recurrence => ({ process: 'track', cadence, actor: 'tik-backend' }));
    const owned = (i: number): string[] => rs.map((r) => periodLabel(r.cadence, now)).filter((l) => shardOf(recurTicketId('track', l), 2) === i);
    expect(owned(0).length + owned(1).length).toBe(5);
    for (const index of [0, 1]) {
      const r = await replica(rs, () => now, { index, count: 2 });
      expect((await r.server.recur!.tick()).map((f) => f.label)).toEqual(owned(index));
      expect(await (await openFileStore(r.dir)).ticketIds()).toEqual(owned(index).map((l) => recurTicketId('track', l)).sort());
    }
  });
});
