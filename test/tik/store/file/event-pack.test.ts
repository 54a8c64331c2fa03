import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodePack, parsePackIndex, slicePack } from '../../../../src/tik/store/file/event-pack.js';
import { openFileStore } from '../../../../src/tik/store/file/open-file-store.js';
import { verifyStore } from '../../../../src/tik/verify/index.js';
import { TICKET, buildStore, copyCorpus, eventPath, type Built } from '../../verify/store-fixture.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});
async function built(): Promise<Built> {
  const b = await buildStore();
  cleanups.push(b.cleanup);
  return b;
}

const eventsDir = (root: string, t: string) => join(root, 'tickets', t, 'events');

/** Packs every loose event of the ticket and removes the loose files (what `tik pack` does). */
async function packTicket(b: { root: string; store: Built['store'] }, ticket: string, keepLoose: readonly string[] = []) {
  const events = await b.store.events(ticket);
  const { pack, index } = encodePack(events);
  writeFileSync(join(eventsDir(b.root, ticket), 'events.pack'), pack);
  writeFileSync(join(eventsDir(b.root, ticket), 'events.pack.idx'), index);
  for (const e of events) if (!keepLoose.includes(e.id)) unlinkSync(eventPath(b.root, ticket, e.id));
  return events;
}

describe('event packs', () => {
  it('the index is pr-str shaped (commas) and reads back to the same slices', () => {
    const events = [
      { id: 'sha256-' + 'b'.repeat(64), bytes: Buffer.from('second') },
      { id: 'sha256-' + 'a'.repeat(64), bytes: Buffer.from('first') },
    ];
    const { pack, index } = encodePack(events);
    expect(pack.toString()).toBe('firstsecond');
    expect(index).toMatch(/^\{:pack "sha256-[0-9a-f]{64}", :entries \[\{:id "sha256-a+", :offset 0, :length 5\} \{:id "sha256-b+", :offset 5, :length 6\}\]\}$/);
    const slices = slicePack(pack, parsePackIndex(index, 'idx'), 'idx');
    expect([...slices].map(([id, b]) => [id, Buffer.from(b).toString()])).toEqual([
      [events[1]!.id, 'first'],
      [events[0]!.id, 'second'],
    ]);
  });

  it('packed events read back byte-exactly, merged with loose ones', async () => {
    const b = await built();
    const before = await b.store.events(TICKET);
    await packTicket(b, TICKET, [b.ids[0]!]);
    const after = await b.store.events(TICKET);
    expect(after.map((e) => e.id).sort()).toEqual(before.map((e) => e.id).sort());
    for (const e of before) {
      expect(Buffer.from(after.find((x) => x.id === e.id)!.bytes).equals(Buffer.from(e.bytes))).toBe(true);
      expect(await b.store.hasEvent(TICKET, e.id)).toBe(true);
      expect(Buffer.from((await b.store.eventBytes(TICKET, e.id))!).equals(Buffer.from(e.bytes))).toBe(true);
    }
    // the id listing sees packed and loose events, each once, from the index alone
    expect((await b.store.allEventIds()).filter((r) => r.ticket === TICKET).map((r) => r.id).sort()).toEqual(before.map((e) => e.id).sort());
    // appending a packed event is a no-op, not a second copy
    expect(await b.store.append(TICKET, b.ids[1]!, before.find((e) => e.id === b.ids[1])!.bytes)).toBe(false);
    expect((await verifyStore(b.store)).ok).toBe(true);
  });

  it('the corpus, packed, still verifies and reads the same', async () => {
    const { root, cleanup } = copyCorpus('support-closed-sticky');
    cleanups.push(cleanup);
    const store = openFileStore(root);
    const [t] = await store.ticketIds();
    const before = (await store.events(t!)).map((e) => e.id).sort();
    await packTicket({ root, store: store as Built['store'] }, t!);
    expect((await store.events(t!)).map((e) => e.id).sort()).toEqual(before);
    expect((await verifyStore(store)).ok).toBe(true);
  });

  it('a damaged slice fails L0 for exactly that event', async () => {
    const b = await built();
    await packTicket(b, TICKET);
    const packPath = join(eventsDir(b.root, TICKET), 'events.pack');
    const pack = readFileSync(packPath);
    const index = parsePackIndex(readFileSync(`${packPath}.idx`, 'utf8'), 'idx');
    const victim = index.entries[1]!;
    // "seb" → "Seb": still a well-formed event, but no longer the bytes its id names
    const at = victim.offset + pack.subarray(victim.offset, victim.offset + victim.length).indexOf('"seb"') + 1;
    pack[at] = pack[at]! ^ 0x20;
    writeFileSync(packPath, pack);
    const t = (await verifyStore(b.store)).tickets[0]!;
    expect(t.levels.L0.problems.map((p) => [p.code, p.event])).toEqual([['L0/hash-mismatch', victim.id]]);
  });

  it('a corrupt index is a clear error for readers and an L0 failure for verify', async () => {
    const b = await built();
    await packTicket(b, TICKET);
    const idx = join(eventsDir(b.root, TICKET), 'events.pack.idx');
    writeFileSync(idx, '{:pack "sha256-x" :entries');
    await expect(b.store.events(TICKET)).rejects.toMatchObject({ code: 'store/bad-pack', where: `tickets/${TICKET}/events/events.pack.idx` });
    const r = await verifyStore(b.store);
    expect(r.ok).toBe(false);
    expect(r.tickets[0]!.levels.L0.problems.map((p) => p.code)).toEqual(['L0/unreadable']);
  });

  it('an entry past the end of the pack, or an index without its pack, is refused', async () => {
    const b = await built();
    await packTicket(b, TICKET);
    const dir = eventsDir(b.root, TICKET);
    const text = readFileSync(join(dir, 'events.pack.idx'), 'utf8');
    writeFileSync(join(dir, 'events.pack.idx'), text.replace(/:length (\d+)\}\]/, ':length 99999}]'));
    await expect(b.store.events(TICKET)).rejects.toThrow(/runs past the end of the pack/);
    writeFileSync(join(dir, 'events.pack.idx'), text);
    unlinkSync(join(dir, 'events.pack'));
    await expect(b.store.events(TICKET)).rejects.toThrow(/events.pack does not/);
  });

  it('index entries must be well formed', () => {
    expect(() => parsePackIndex('[]', 'i')).toThrow(/is not a map/);
    expect(() => parsePackIndex('{:pack "sha256-x", :entries []}', 'i')).toThrow(/:pack is not/);
    const p = `sha256-${'c'.repeat(64)}`;
    expect(() => parsePackIndex(`{:pack "${p}", :entries [{:id "x", :offset 0, :length 1}]}`, 'i')).toThrow(/no sha256/);
    expect(() => parsePackIndex(`{:pack "${p}", :entries [{:id "${p}", :offset -1, :length 1}]}`, 'i')).toThrow(/non-negative/);
    expect(parsePackIndex(`{:pack "${p}", :entries []}`, 'i').entries).toEqual([]);
  });
});

describe('loading a ticket with a corrupt pack', () => {
  it('reports the unreadable log as a problem naming the index', async () => {
    const { loadTicket } = await import('../../../../src/tik/store/load-ticket.js');
    const b = await built();
    await packTicket(b, TICKET);
    writeFileSync(join(eventsDir(b.root, TICKET), 'events.pack.idx'), '{:pack');
    const t = await loadTicket(b.store, TICKET);
    expect(t.events).toEqual([]);
    expect(t.problems).toMatchObject([{ code: 'ticket/unreadable', where: `tickets/${TICKET}/events/events.pack.idx` }]);
  });
});
