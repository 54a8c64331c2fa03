import { describe, expect, it } from 'vitest';
import { mintEvent } from '../../../src/tik/kernel/index.js';
import { AntiEntropy } from '../../../src/tik/server/index.js';
import { PushRefusedError } from '../../../src/tik/sync/http-transport.js';
import { localTransport, type SyncTransport } from '../../../src/tik/sync/index.js';
import { Instant, Uuid, ednMapOf, kw } from '../sync/edn-helpers.js';
import { TestMemoryStore } from '../sync/memory-store.js';

// Issue 12: a peer that refuses our push (401) is not backed off or quarantined: anti-entropy
// keeps pulling from it, reports the refusal on the peer's status, syncs pull-only until the
// retry time, and clears the report once a push is accepted.

const T0 = Date.parse('2026-07-01T00:00:00Z');
let n = 0;
async function add(s: TestMemoryStore): Promise<void> {
  const t = `018f2f6e-7c1a-7000-8000-${String(++n).padStart(12, '0')}`;
  const m = mintEvent({ ticket: new Uuid(t), type: kw('ticket/create'), actor: 'seb', at: new Instant(T0), parents: [], body: ednMapOf({ 'ticket/title': t, 'ticket/process': kw('p') }) });
  await s.append(t, m.event.id, Buffer.from(m.text));
}

describe('anti-entropy with a peer that refuses our pushes', () => {
  it('pulls, reports pushRefused, goes pull-only until retryAt, and clears it when a push is taken', async () => {
    const local = new TestMemoryStore('local');
    const peer = new TestMemoryStore('peer');
    await add(local);
    await add(peer);
    let refuse = true;
    let pushes = 0;
    const transport = (): SyncTransport => {
      const inner = localTransport(peer);
      return {
        reconcile: (m) => inner.reconcile(m),
        fetch: (m) => inner.fetch(m),
        push: async (b) => {
          pushes++;
          if (refuse) throw new PushRefusedError(401, 'auth/unauthenticated', 'http://peer refused the push (auth/unauthenticated)', { where: 'http://peer' });
          return inner.push(b);
        },
      };
    };
    let now = T0;
    const warnings: string[] = [];
    // the peer URL is only used for the roles digest, which answers "unknown" when unreachable
    const url = 'http://127.0.0.1:9';
    const ae = new AntiEntropy(local, [url], 1000, { info: () => undefined, warn: (_o, m) => warnings.push(m) }, transport, { now: () => now });

    await ae.round();
    expect((await local.ticketIds()).length).toBe(2); // the pull stands
    expect((await peer.ticketIds()).length).toBe(1);
    expect(pushes).toBe(1);
    const h = ae.peerHealth()[0]!;
    expect(h).toMatchObject({ state: 'ok', failures: 0, pushRefused: { code: 'auth/unauthenticated', status: 401 } });
    expect(Date.parse(h.pushRefused!.retryAt!) - now).toBe(60_000);
    expect(warnings).toContain('anti-entropy: peer refused our push (its authorship policy); pulled only');

    // within the retry time: pull-only (no push is tried), still pulling what is new at the peer
    await add(peer);
    now += 30_000;
    await ae.round();
    expect([pushes, (await local.ticketIds()).length]).toEqual([1, 3]);
    expect(ae.peerHealth()[0]!.pushRefused?.code).toBe('auth/unauthenticated');

    // past it, a push is tried again; once the peer takes it, the report is gone
    refuse = false;
    now += 60_000;
    await ae.round();
    expect(pushes).toBe(2);
    expect((await peer.ticketIds()).length).toBe(3);
    expect(ae.peerHealth()[0]).toMatchObject({ state: 'ok' });
    expect(ae.peerHealth()[0]!.pushRefused).toBeUndefined();
    await ae.stop();
  });
});
