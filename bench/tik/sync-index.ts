/**
 * What one sync round costs a replica before any message is sent: building its item set
 * (`indexStore`). Compares, on one file store of N tickets × 100 events, the index built from the
 * id listing (`allEventIds`/`allSidecarNames`, every id's time already cached: a long-running
 * `tik serve`) against the same store with the listing hidden, which reads every event's bytes
 * each round (what the index did before the listing existed). Runs alternate between the two so
 * a loaded machine's drift hits both alike; medians. Also a whole no-op sync of two equal stores
 * (in process, local transport: both sides index), the same way. Never asserts time.
 * Standalone: `npm run build && node dist/bench/tik/sync-index.js [--quick]`; also in `dist/bench/run.js`.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { FileStore } from '../../src/tik/store/file/file-store.js';
import type { EventStore } from '../../src/tik/store/store.js';
import { indexStore, localTransport, syncWith } from '../../src/tik/sync/index.js';
import { benchStore, benchTicket, writeTicket } from './fixture.js';
import type { BenchResult } from './measure.js';

const middle = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The store with its id listings hidden: `indexStore` falls back to reading every event. */
function withoutListing(store: EventStore): EventStore {
  return new Proxy(store, { get: (o, k) => (k === 'allEventIds' || k === 'allSidecarNames' ? undefined : (Reflect.get(o, k) as unknown)) });
}

/** Median index time with and without the listing, over `runs` alternating pairs (after a warm-up of each). */
export async function compareIndex(store: EventStore, runs: number): Promise<{ listedMs: number; readMs: number }> {
  const hidden = withoutListing(store);
  await indexStore(store);
  await indexStore(hidden);
  const listed: number[] = [];
  const read: number[] = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    await indexStore(store);
    listed.push(performance.now() - t);
    t = performance.now();
    await indexStore(hidden);
    read.push(performance.now() - t);
  }
  return { listedMs: middle(listed), readMs: middle(read) };
}

/** Median no-op sync of two equal stores (in process, both sides indexing), with and without the listing, alternating. */
export async function compareNoopSync(a: EventStore, b: EventStore, runs: number): Promise<{ listedMs: number; readMs: number }> {
  const once = async (x: EventStore, y: EventStore): Promise<number> => {
    const t = performance.now();
    const r = await syncWith(x, localTransport(y));
    if (r.need + r.have !== 0) throw new Error('the stores differ');
    return performance.now() - t;
  };
  const [ha, hb] = [withoutListing(a), withoutListing(b)];
  await once(b, a);
  await once(hb, ha);
  const listed: number[] = [];
  const read: number[] = [];
  for (let i = 0; i < runs; i++) {
    listed.push(await once(b, a));
    read.push(await once(hb, ha));
  }
  return { listedMs: middle(listed), readMs: middle(read) };
}

export async function benchSyncIndex(tickets = 1000, runs = 5): Promise<BenchResult[]> {
  const work = mkdtempSync(join(tmpdir(), 'tik-bench-index-'));
  try {
    const root = join(work, 'a');
    const def = benchStore(root);
    process.stderr.write(`sync index: writing ${tickets} tickets × 100 events…\n`);
    for (let t = 0; t < tickets; t++) writeTicket(root, def, benchTicket(t), 100);
    cpSync(root, join(work, 'b'), { recursive: true });
    const a = new FileStore(root, { durable: false });
    const index = await compareIndex(a, runs);
    const noop = await compareNoopSync(a, new FileStore(join(work, 'b'), { durable: false }), runs);
    const note = 'floor = reading every event each round (before allEventIds)';
    return [
      { name: `sync round index, ${tickets * 100} events`, floorMs: index.readMs, ms: index.listedMs, note },
      { name: `no-op sync, 2 × ${tickets * 100} events`, floorMs: noop.readMs, ms: noop.listedMs, note: `${note}; in process, both sides` },
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes('--quick');
  for (const r of await benchSyncIndex(quick ? 100 : 1000, quick ? 5 : 7)) {
    process.stdout.write(`${r.name}: ${r.ms.toFixed(0)} ms from the id listing vs ${r.floorMs.toFixed(0)} ms reading every event → ${(r.floorMs / r.ms).toFixed(1)}× faster\n`);
  }
}
