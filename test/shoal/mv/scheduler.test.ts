import { describe, expect, it } from 'vitest';
import type { Schedule } from '../../../src/core/lease/index.js';
import type { RefreshResult } from '../../../src/shoal/mv/refresh-under-lease.js';
import { MvScheduler } from '../../../src/shoal/mv/scheduler.js';

/** A manual timer: `fire()` runs what is due. */
function manualSchedule() {
  const pending: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  const schedule: Schedule = (fn, ms) => {
    const t = { fn, ms, cancelled: false };
    pending.push(t);
    return () => void (t.cancelled = true);
  };
  return {
    schedule,
    pending: () => pending.filter((t) => !t.cancelled),
    fire() {
      const due = pending.splice(0).filter((t) => !t.cancelled);
      for (const t of due) t.fn();
      return due.length;
    },
  };
}
const refreshed = (id: string): RefreshResult => ({ outcome: 'refreshed', snapshotId: `${id}/s`, rowCount: 1, epoch: 1 });
const flush = () => new Promise((r) => setTimeout(r, 0));

describe('MvScheduler', () => {
  it('each tick tries every candidate in turn, then runs the housekeeping', async () => {
    const calls: string[] = [];
    const s = new MvScheduler({
      candidates: async () => ['a', 'b'],
      refresh: async (id) => (calls.push(id), refreshed(id)),
      afterTick: async () => void calls.push('gc'),
    });
    const r = await s.tick();
    expect(r.attempted.map((a) => a.mvId)).toEqual(['a', 'b']);
    expect(calls).toEqual(['a', 'b', 'gc']);
  });

  it('a failing refresh or candidate query is reported and the loop carries on', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const s = new MvScheduler(
      {
        candidates: async () => {
          if (fail) throw new Error('catalog down');
          return ['a', 'b'];
        },
        refresh: async (id) => {
          if (id === 'a') throw new Error('engine down');
          return refreshed(id);
        },
      },
      { onError: (e) => errors.push(e) },
    );
    expect((await s.tick()).attempted).toEqual([]);
    fail = false;
    expect((await s.tick()).attempted.map((a) => a.mvId)).toEqual(['b']);
    expect(errors.map((e) => (e as Error).message)).toEqual(['catalog down', 'engine down']);
  });

  it('ticks never overlap: a tick while one runs does nothing', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const s = new MvScheduler({ candidates: async () => ['a'], refresh: async (id) => (await gate, refreshed(id)) });
    const first = s.tick();
    expect(await s.tick()).toEqual({ attempted: [], overlapped: true });
    release();
    expect((await first).attempted).toHaveLength(1);
  });

  it('runs on the injected schedule, re-arms after each tick, and stops', async () => {
    const timer = manualSchedule();
    let ticks = 0;
    const s = new MvScheduler({ candidates: async () => (ticks++, []), refresh: async (id) => refreshed(id) }, { intervalMs: 250, schedule: timer.schedule });
    s.start();
    expect(timer.pending().map((t) => t.ms)).toEqual([250]);
    timer.fire();
    await flush();
    expect(ticks).toBe(1);
    expect(timer.pending()).toHaveLength(1);
    timer.fire();
    await flush();
    expect(ticks).toBe(2);
    await s.stop();
    expect(timer.pending()).toHaveLength(0);
    expect(timer.fire()).toBe(0);
  });
});
