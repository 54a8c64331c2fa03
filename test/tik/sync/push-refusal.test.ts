import { describe, expect, it } from 'vitest';
import { mintEvent } from '../../../src/tik/kernel/index.js';
import { PushRefusedError } from '../../../src/tik/sync/http-transport.js';
import { toleratePushRefusal } from '../../../src/tik/sync/push-refusal.js';
import { localTransport, syncWith, type SyncTransport } from '../../../src/tik/sync/index.js';
import { Instant, Uuid, ednMapOf, kw } from './edn-helpers.js';
import { TestMemoryStore } from './memory-store.js';

// Issue 12: a peer whose authorship policy refuses our push is not a failing peer — the pull
// half of the sync stands and the refusal is reported instead of failing the session.

const T0 = Date.parse('2026-07-01T00:00:00Z');

async function storeWithTickets(tickets: readonly string[]): Promise<TestMemoryStore> {
  const s = new TestMemoryStore();
  for (const t of tickets) {
    const m = mintEvent({ ticket: new Uuid(t), type: kw('ticket/create'), actor: 'seb', at: new Instant(T0), parents: [], body: ednMapOf({ 'ticket/title': t, 'ticket/process': kw('p') }) });
    await s.append(t, m.event.id, Buffer.from(m.text));
  }
  return s;
}

const ticket = (n: number): string => `018f2f6e-7c1a-7000-8000-${String(n).padStart(12, '0')}`;

/** `peer` reached in process, answering every push with `status` (counted). */
function refusing(peer: TestMemoryStore, status: 401 | 403): { transport: SyncTransport; pushes: () => number } {
  const inner = localTransport(peer);
  let pushes = 0;
  return {
    transport: {
      reconcile: (m) => inner.reconcile(m),
      fetch: (m) => inner.fetch(m),
      push: async () => {
        pushes++;
        throw new PushRefusedError(status, status === 401 ? 'auth/unauthenticated' : 'auth/unsigned', `http://peer refused the push (${status})`, { where: 'http://peer' });
      },
    },
    pushes: () => pushes,
  };
}

describe('a refused push', () => {
  it('401: the sync still pulls everything, sends no further push, and reports the refusal', async () => {
    const local = await storeWithTickets([ticket(1), ticket(2), ticket(3)]);
    const peer = await storeWithTickets([ticket(4), ticket(5)]);
    const r = refusing(peer, 401);
    const t = toleratePushRefusal(r.transport);
    const report = await syncWith(local, t.transport, { batch: 1 });
    expect([report.pulled, report.pushed, report.have]).toEqual([2, 0, 3]);
    expect(r.pushes()).toBe(1);
    expect(t.refusal()).toMatchObject({ code: 'auth/unauthenticated', status: 401, refused: 1, stopped: true });
    expect((await local.ticketIds()).length).toBe(5);
    expect((await peer.ticketIds()).length).toBe(2);
  });

  it('403: every batch is still offered (another may be admitted); without the wrapper the session fails', async () => {
    const local = await storeWithTickets([ticket(1), ticket(2), ticket(3)]);
    const peer = await storeWithTickets([ticket(4)]);
    const r = refusing(peer, 403);
    const t = toleratePushRefusal(r.transport);
    const report = await syncWith(local, t.transport, { batch: 1 });
    expect([report.pulled, report.pushed]).toEqual([1, 0]);
    expect(r.pushes()).toBe(3);
    expect(t.refusal()).toMatchObject({ code: 'auth/unsigned', status: 403, refused: 3, stopped: false });
    await expect(syncWith(local, refusing(peer, 403).transport, { direction: 'push' })).rejects.toMatchObject({ code: 'sync/push-refused' });
  });
});
