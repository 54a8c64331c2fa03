import { afterAll, describe, expect, it } from 'vitest';
import { parseEvent } from '../../../src/tik/kernel/index.js';
import { FileStore } from '../../../src/tik/store/file/file-store.js';
import { BUNDLE_MAGIC, RecordKind, encodeBundle, type Bundle } from '../../../src/tik/sync/bundle.js';
import { ByteWriter } from '../../../src/tik/sync/byte-io.js';
import { collectBundle } from '../../../src/tik/sync/collect-bundle.js';
import { receiveStream } from '../../../src/tik/sync/receive-bundle.js';
import { indexStore } from '../../../src/tik/sync/store-index.js';
import { cleanup, json, supportStore, tik } from '../cli/harness.js';

// Issue 13: a push is admitted while it streams, in groups of whole units. A cut stream keeps
// the groups admitted before the cut, each event whole; the retry completes it. Bundles in the
// older record order (definitions, blobs, events, sidecars) are still admitted.

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

async function source(): Promise<{ store: FileStore; ticket: string; bundle: Bundle }> {
  const dir = await supportStore();
  dirs.push(dir);
  const { ticket } = json<{ ticket: string }>(await tik(dir, ['new', 'support-request', '--title', 'printer', '--json']));
  for (let i = 0; i < 6; i++) expect((await tik(dir, ['comment', ticket, `comment ${i}`])).code).toBe(0);
  const store = new FileStore(dir);
  const index = await indexStore(store);
  return { store, ticket, bundle: await collectBundle(store, index, [...index.ticketOf.keys()]) };
}

async function empty(): Promise<FileStore> {
  const dir = await supportStore();
  dirs.push(dir);
  return new FileStore(dir);
}

/** The body in 7-byte pieces, cut after `cut` bytes when given. */
async function* pieces(body: Uint8Array, cut = body.length): AsyncIterable<Uint8Array> {
  for (let at = 0; at < cut; at += 7) yield body.subarray(at, Math.min(at + 7, cut));
}

/** The encoding before unit order: definitions, blobs, events, then sidecars. */
function olderOrder(b: Bundle): Uint8Array {
  const w = new ByteWriter();
  w.bytes(BUNDLE_MAGIC);
  w.byte(1);
  for (const p of b.processes) {
    w.byte(RecordKind.Process);
    w.lengthPrefixed(Buffer.from(p, 'utf8'));
  }
  for (const e of b.events) {
    w.byte(RecordKind.Event);
    w.bytes(Buffer.from(e.ticket.replace(/-/g, ''), 'hex'));
    w.bytes(Buffer.from(e.id.slice('sha256-'.length), 'hex'));
    w.lengthPrefixed(e.bytes);
  }
  w.byte(RecordKind.End);
  return w.finish();
}

describe('streamed push', () => {
  it('a stream cut mid-way keeps whole events of the groups admitted before the cut; the retry completes it', async () => {
    const src = await source();
    const body = encodeBundle(src.bundle);
    const into = await empty();
    // groups of one unit each, so every completed unit before the cut is admitted
    await expect(receiveStream(into, pieces(body, Math.floor(body.length * 0.6)), { groupBytes: 1 })).rejects.toMatchObject({ code: 'sync/truncated' });
    const kept = await into.events(src.ticket);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(src.bundle.events.length);
    // what is stored is parent-closed: every parent of a stored event is stored
    const ids = new Set(kept.map((e) => e.id));
    for (const e of kept) for (const p of parseEvent(Buffer.from(e.bytes).toString('utf8'), e.id).parents) expect(ids.has(p)).toBe(true);
    const retry = await receiveStream(into, pieces(body), { groupBytes: 1 });
    expect(retry).toMatchObject({ stored: src.bundle.events.length - kept.length, present: kept.length });
    expect((await into.events(src.ticket)).length).toBe(src.bundle.events.length);
  });

  it('admits a bundle in the older record order, and one in unit order, alike', async () => {
    const src = await source();
    const older = await empty();
    expect(await receiveStream(older, pieces(olderOrder(src.bundle)), { groupBytes: 1 })).toMatchObject({ stored: src.bundle.events.length, processes: src.bundle.processes.length });
    const unit = await empty();
    expect(await receiveStream(unit, pieces(encodeBundle(src.bundle)), { groupBytes: 1 })).toMatchObject({ stored: src.bundle.events.length, processes: src.bundle.processes.length });
  });

  it('refuses a unit larger than the group limit at that record', async () => {
    const src = await source();
    await expect(receiveStream(await empty(), pieces(encodeBundle(src.bundle)), { maxGroupBytes: 100 })).rejects.toMatchObject({ code: 'sync/too-large' });
  });
});
