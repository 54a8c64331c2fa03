import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/tik/store/file/file-store.js';
import type { EventStore, StoredEvent } from '../../../src/tik/store/store.js';
import { decodeBundle, encodeBundle, localTransport, syncWith } from '../../../src/tik/sync/index.js';
import { chainEvents } from './chain-events.js';

// Items sort by time, so each fetch batch of a full sync holds a slice of every ticket; storing
// each slice as it came wrote every ticket once per batch (only the first took the cheap path).

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop()!, { recursive: true, force: true });
});

const ticketN = (n: number): string => `018f2f6e-7c1a-7000-8000-${n.toString(16).padStart(12, '0')}`;

function fileStore(): FileStore {
  const dir = mkdtempSync(join(tmpdir(), 'tik-pull-'));
  dirs.push(dir);
  return new FileStore(dir, { durable: false });
}

/** A real FileStore whose appendBatch calls are recorded (ticket, events). */
function recordingBatches(store: FileStore): { store: EventStore; batches: { ticket: string; n: number }[] } {
  const batches: { ticket: string; n: number }[] = [];
  const wrapped = new Proxy(store, {
    get(target, key) {
      if (key === 'appendBatch')
        return async (t: string, events: readonly StoredEvent[]) => {
          batches.push({ ticket: t, n: events.length });
          return target.appendBatch(t, events);
        };
      const v = Reflect.get(target, key) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { store: wrapped, batches };
}

describe('a pull writes each ticket as one batch', () => {
  it('many tickets × many events, fetched in batches that each slice every ticket: one appendBatch per ticket', async () => {
    const peer = fileStore();
    const tickets = Array.from({ length: 8 }, (_, t) => ticketN(t));
    // every ticket starts at the same instant, so the time order interleaves them
    for (const t of tickets) for (const e of chainEvents(t, 30)) await peer.append(t, e.id, e.bytes);
    const { store: local, batches } = recordingBatches(fileStore());

    const r = await syncWith(local, localTransport(peer), { direction: 'pull', batch: 60 });

    expect(r.pulled).toBe(240);
    expect(batches.map((b) => b.ticket).sort()).toEqual(tickets);
    expect(batches.every((b) => b.n === 30)).toBe(true);
    for (const t of tickets) expect((await local.events(t)).length).toBe(30);
  });

  it('an answer holding what was not asked for still refuses the pull; the answers before it are stored', async () => {
    const peer = fileStore();
    const tickets = Array.from({ length: 8 }, (_, t) => ticketN(t));
    for (const t of tickets) for (const e of chainEvents(t, 30)) await peer.append(t, e.id, e.bytes);
    const local = fileStore();
    const t = localTransport(peer);
    const stray = chainEvents(ticketN(99), 1)[0]!;
    let fetches = 0;
    const hostile = {
      ...t,
      fetch: async (m: Uint8Array) => {
        const body = await t.fetch(m);
        if (++fetches !== 2) return body;
        const b = decodeBundle(body);
        return encodeBundle({ ...b, events: [...b.events, { ticket: ticketN(99), id: stray.id, bytes: stray.bytes }] });
      },
    };

    await expect(syncWith(local, hostile, { direction: 'pull', batch: 60 })).rejects.toMatchObject({ code: 'sync/refused' });

    let held = 0;
    for (const tk of tickets) held += (await local.events(tk)).length;
    expect(held).toBe(60);
    expect(await local.events(ticketN(99))).toEqual([]);
  });
});
