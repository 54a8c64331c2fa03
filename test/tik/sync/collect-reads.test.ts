import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/tik/store/file/file-store.js';
import type { EventStore, StoredEvent } from '../../../src/tik/store/store.js';
import { collectBundle, indexStore } from '../../../src/tik/sync/index.js';
import { chainEvents } from './chain-events.js';
import { signatureSidecar, testKey } from './test-keys.js';

// Issue 18: collecting a batch read every event of every ticket the batch touched, so a full sync
// whose batches each touch every ticket read the store once per batch (worse than linear).

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop()!, { recursive: true, force: true });
});

const ticketN = (n: number): string => `018f2f6e-7c1a-7000-8000-${n.toString(16).padStart(12, '0')}`;

/** A ticket of `n` chained events, appended; their ids in order. */
async function writeChain(store: EventStore, ticket: string, n: number): Promise<string[]> {
  const events = chainEvents(ticket, n);
  for (const e of events) await store.append(ticket, e.id, e.bytes);
  return events.map((e) => e.id);
}

/** A real FileStore whose event reads (by any method) are counted, event by event. */
function countingReads(store: FileStore): { store: EventStore; read: () => number } {
  let read = 0;
  const counted = (events: readonly StoredEvent[]): readonly StoredEvent[] => ((read += events.length), events);
  const wrapped = new Proxy(store, {
    get(target, key) {
      if (key === 'events') return async (t: string) => counted(await target.events(t));
      if (key === 'eventsById') return async (t: string, ids: readonly string[]) => counted(await target.eventsById(t, ids));
      if (key === 'eventBytes')
        return async (t: string, id: string) => {
          const b = await target.eventBytes(t, id);
          if (b !== undefined) read++;
          return b;
        };
      const v = Reflect.get(target, key) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { store: wrapped, read: () => read };
}

describe('collecting a fetch answer reads only the wanted events', () => {
  it('a batch with one event from each of many tickets reads those events, not the tickets', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tik-collect-'));
    dirs.push(dir);
    const file = new FileStore(dir, { durable: false });
    const chains: string[][] = [];
    for (let t = 0; t < 6; t++) chains.push(await writeChain(file, ticketN(t), 40));
    // a signature on one wanted event travels with it (from the index, without listing the ticket)
    const { name, bytes } = signatureSidecar(testKey('seb'), chains[2]![7]!, (await file.eventBytes(ticketN(2), chains[2]![7]!))!);
    await file.putSidecar(ticketN(2), name, bytes);
    const index = await indexStore(file);
    // the shape of a full sync's batch: the same position in every ticket (items sort by time)
    const wanted = chains.map((c) => c[7]!);
    const { store, read } = countingReads(file);

    const bundle = await collectBundle(store, index, wanted);

    expect(bundle.events.map((e) => e.id).sort()).toEqual([...wanted].sort());
    expect(bundle.sidecars.map((s) => s.name)).toEqual([name]);
    expect(read()).toBe(wanted.length);
  });

  it('a wanted id the store does not hold reads nothing more than the others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tik-collect-'));
    dirs.push(dir);
    const file = new FileStore(dir, { durable: false });
    const chain = await writeChain(file, ticketN(9), 30);
    const index = await indexStore(file);
    const { store, read } = countingReads(file);
    // an id the index places in the ticket whose file has since gone (as a damaged store might)
    rmSync(join(dir, 'tickets', ticketN(9), 'events', `${chain[3]}.edn`));

    const bundle = await collectBundle(store, index, [chain[3]!, chain[4]!]);

    expect(bundle.events.map((e) => e.id)).toEqual([chain[4]]);
    expect(read()).toBe(1);
  });
});
