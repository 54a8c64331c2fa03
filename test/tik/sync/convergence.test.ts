import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadTicketAt } from '../../../src/tik/app/ticket-loader.js';
import { statusView } from '../../../src/tik/app/lenses.js';
import { emit, readEdn } from '../../../src/tik/edn/index.js';
import { Instant, Uuid, kw, ednMapOf, type EdnValue } from './edn-helpers.js';
import { heads, mintEvent, parseEvent, parseProcess } from '../../../src/tik/kernel/index.js';
import { TikError } from '../../../src/tik/errors.js';
import { encodeBundle, localTransport, syncWith, type SyncTransport } from '../../../src/tik/sync/index.js';
import { TestMemoryStore } from './memory-store.js';
import { signatureSidecar, testKey } from './test-keys.js';
import type { SshPrivateKey } from '../../../src/core/sshsig.js';

const KEYS = new Map<number, SshPrivateKey>();
const keyOf = (r: number): SshPrivateKey => {
  let k = KEYS.get(r);
  if (k === undefined) KEYS.set(r, (k = testKey(`r${r}`)));
  return k;
};

// Law (issue 5 acceptance, extended by issue 13): replicas that take random writes and random
// pairwise syncs — some of them interrupted by a crash mid-transfer, some of them with a hostile
// peer that is given up on — hold the same event set and derive the same status for every ticket
// once every pair of honest replicas has synced.

const DEF_TEXT = emit(readEdn(readFileSync(resolve(process.cwd(), '../shared/tik-conformance/processes/support-request.edn'), 'utf8')));
const DEF = parseProcess(readEdn(DEF_TEXT, 'support-request'), 'support-request');
const TICKETS = ['018f2f6e-7c1a-7000-8000-000000000001', '018f2f6e-7c1a-7000-8000-000000000002', '018f2f6e-7c1a-7000-8000-000000000003'];
const PATHS = [[kw('category')], [kw('priority')], [kw('resolution'), kw('ref')]];
const VALUES: EdnValue[] = [kw('technical'), kw('billing'), kw('high'), 'abc123', 42n];
const T0 = Date.parse('2026-07-01T00:00:00Z');

type Op =
  | { kind: 'create'; r: number; t: number }
  | { kind: 'assert'; r: number; t: number; p: number; v: number }
  | { kind: 'dispute'; r: number; t: number; p: number }
  | { kind: 'retract'; r: number; t: number; p: number }
  | { kind: 'sign'; r: number; t: number; v: number }
  | { kind: 'sync'; a: number; b: number; crashAfter: number | undefined }
  | { kind: 'hostile'; r: number; how: Hostility };

/** How the hostile peer misbehaves (issue 13): each ends the honest replica's session with an error. */
type Hostility = 'endless' | 'flood' | 'garbage-bundle' | 'bad-hash' | 'refuses-push';

const opArb = (n: number): fc.Arbitrary<Op> => {
  const r = fc.integer({ min: 0, max: n - 1 });
  const t = fc.integer({ min: 0, max: TICKETS.length - 1 });
  const p = fc.integer({ min: 0, max: PATHS.length - 1 });
  return fc.oneof(
    fc.record({ kind: fc.constant('create' as const), r, t }),
    fc.record({ kind: fc.constant('assert' as const), r, t, p, v: fc.integer({ min: 0, max: VALUES.length - 1 }) }),
    fc.record({ kind: fc.constant('assert' as const), r, t, p, v: fc.integer({ min: 0, max: VALUES.length - 1 }) }),
    fc.record({ kind: fc.constant('dispute' as const), r, t, p }),
    fc.record({ kind: fc.constant('retract' as const), r, t, p }),
    fc.record({ kind: fc.constant('sign' as const), r, t, v: fc.nat() }),
    fc.record({ kind: fc.constant('sync' as const), a: r, b: r, crashAfter: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }) }),
    fc.record({ kind: fc.constant('hostile' as const), r, how: fc.constantFrom<Hostility>('endless', 'flood', 'garbage-bundle', 'bad-hash', 'refuses-push') }),
  );
};

/** A real signature sidecar by the replica's key on one of its events of the ticket (sidecars sync too). */
async function sign(store: TestMemoryStore, op: Extract<Op, { kind: 'sign' }>, signed: Set<string>): Promise<void> {
  const ticket = TICKETS[op.t]!;
  const events = [...(await store.events(ticket))].sort((a, b) => (a.id < b.id ? -1 : 1));
  if (events.length === 0) return;
  const e = events[op.v % events.length]!;
  const { name, bytes } = signatureSidecar(keyOf(op.r), e.id, e.bytes);
  await store.putSidecar(ticket, name, bytes);
  signed.add(`${ticket}/${name}`);
}

async function sidecars(store: TestMemoryStore): Promise<string[]> {
  const out: string[] = [];
  for (const t of await store.ticketIds()) for (const n of await store.sidecarNames(t)) out.push(`${t}/${n}=${Buffer.from((await store.readSidecar(t, n))!).toString()}`);
  return out;
}

async function write(store: TestMemoryStore, op: Exclude<Op, { kind: 'sync' | 'sign' | 'hostile' }>, step: number, written: Set<string>): Promise<void> {
  const ticket = TICKETS[op.t]!;
  const existing = (await store.events(ticket)).map((e) => parseEvent(Buffer.from(e.bytes).toString('utf8'), e.id));
  if ((op.kind === 'create') !== (existing.length === 0)) return; // create only new tickets; write only to held ones
  const parents = heads(existing);
  const at = new Instant(T0 + step * 1000 + op.r); // replicas' clocks differ a little
  const actor = `r${op.r}`;
  let type: string;
  let body: EdnValue;
  if (op.kind === 'create') {
    await store.archiveProcess(DEF_TEXT);
    type = 'ticket/create';
    body = ednMapOf({ 'ticket/title': `ticket ${op.t}`, 'ticket/process': kw('support-request'), 'ticket/process-hash': DEF.hash });
  } else if (op.kind === 'assert') {
    type = 'fact/assert';
    body = ednMapOf({ 'fact/path': PATHS[op.p]!, 'fact/value': VALUES[op.v]! });
  } else if (op.kind === 'dispute') {
    type = 'fact/dispute';
    body = ednMapOf({ 'fact/path': PATHS[op.p]!, 'dispute/reason': `disputed by ${actor}` });
  } else {
    type = 'fact/retract';
    body = ednMapOf({ 'fact/path': PATHS[op.p]! });
  }
  const m = mintEvent({ ticket: new Uuid(ticket), type: kw(type), actor, at, parents, body: body as never });
  await store.append(ticket, m.event.id, Buffer.from(m.text, 'utf8'));
  written.add(`${ticket}/${m.event.id}`);
}

async function sync(a: TestMemoryStore, b: TestMemoryStore, crashAfter?: number): Promise<void> {
  b.failAfter = crashAfter;
  try {
    await syncWith(a, localTransport(b), { batch: 2 });
  } catch (e) {
    if (!(e instanceof Error) || e.message !== 'simulated crash') throw e;
  } finally {
    b.failAfter = undefined;
  }
}

/**
 * A hostile peer speaking the wire format in process: it never finishes reconciling, floods ids,
 * answers fetches with garbage or with bytes that do not hash to their id, or claims everything
 * is new and then refuses pushes. Whatever it does, the honest replica stores nothing it sends.
 */
function hostile(how: Hostility): SyncTransport {
  const fp = (): number[] => Array.from({ length: 16 }, (_, i) => (i * 37 + Date.now()) & 0xff);
  const oneId = Uint8Array.from([0x61, 0x00, 0x00, 0x02, 0x01, ...new Uint8Array(32).fill(7)]);
  return {
    reconcile: async () => {
      if (how === 'endless') return Uint8Array.from([0x61, 0x00, 0x00, 0x01, ...fp()]);
      if (how === 'flood') return Uint8Array.from([0x61, 0x02, 0x00, 0x02, 0x40, ...Array.from({ length: 64 * 32 }, (_, i) => (i * 31 + Date.now()) & 0xff), 0x00, 0x00, 0x01, ...fp()]);
      if (how === 'refuses-push') return Uint8Array.from([0x61, 0x00, 0x00, 0x02, 0x00]); // "I have nothing": the replica pushes all
      return oneId;
    },
    fetch: async () => {
      if (how === 'bad-hash') {
        const { text } = mintEvent({ ticket: new Uuid(TICKETS[0]!), type: kw('ticket/create'), actor: 'mallory', at: new Instant(T0), parents: [], body: ednMapOf({ 'ticket/title': 'forged', 'ticket/process': kw('support-request') }) as never });
        return encodeBundle({ processes: [], blobs: [], sidecars: [], events: [{ ticket: TICKETS[0]!, id: `sha256-${'07'.repeat(32)}`, bytes: Buffer.from(text) }] });
      }
      return Uint8Array.from([0x54, 0x49, 0x4b, 0x42, 0x01, 0x09, 0x09]);
    },
    push: async () => {
      throw new TikError('sync/peer-refused', 'the hostile peer refused the push', {});
    },
  };
}

async function statuses(store: TestMemoryStore): Promise<string[]> {
  const now = new Instant(T0 + 10_000_000);
  const out: string[] = [];
  for (const ticket of await store.ticketIds()) out.push(JSON.stringify(statusView(await loadTicketAt(undefined, store, ticket), now).json));
  return out;
}

describe('replica convergence over sync', () => {
  it('random writes and random (sometimes interrupted) pairwise syncs converge once every pair has synced', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 3, max: 5 }).chain((n) => fc.tuple(fc.constant(n), fc.array(opArb(n), { minLength: 1, maxLength: 30 }))),
        async ([n, ops]) => {
          const replicas = Array.from({ length: n }, (_, i) => new TestMemoryStore(`replica-${i}`));
          const written = new Set<string>();
          const signed = new Set<string>();
          for (const [step, op] of ops.entries()) {
            if (op.kind === 'sync') {
              if (op.a !== op.b) await sync(replicas[op.a]!, replicas[op.b]!, op.crashAfter);
            } else if (op.kind === 'hostile') {
              const before = replicas[op.r]!.allIds();
              const failed = await syncWith(replicas[op.r]!, hostile(op.how), { batch: 2, limits: { rounds: 8, sessionIds: 500 } }).then(
                () => undefined,
                (e: unknown) => e,
              );
              // given up on, with a typed error (a refused push of nothing is no session at all)
              if (op.how !== 'refuses-push' || before.length > 0) expect(failed).toBeInstanceOf(TikError);
              expect(replicas[op.r]!.allIds()).toEqual(before); // and nothing it sent was stored
            } else if (op.kind === 'sign') await sign(replicas[op.r]!, op, signed);
            else await write(replicas[op.r]!, op, step, written);
          }
          for (let pass = 0; pass < 2; pass++) {
            for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) await sync(replicas[i]!, replicas[j]!);
          }
          const first = replicas[0]!.allIds();
          expect(first).toEqual([...written].sort()); // nothing lost, nothing invented
          const firstStatus = await statuses(replicas[0]!);
          const firstSidecars = await sidecars(replicas[0]!);
          expect(firstSidecars.map((x) => x.split('=')[0])).toEqual([...signed].sort());
          for (const r of replicas) {
            expect(r.allIds()).toEqual(first);
            expect(r.appends).toBe(first.length); // every event stored exactly once
            expect(await statuses(r)).toEqual(firstStatus);
            expect(await sidecars(r)).toEqual(firstSidecars);
            if (first.length > 0) expect(await r.readProcessByHash(DEF.hash)).toBe(DEF_TEXT); // the pin travelled
          }
          // converged replicas: the next sync is one round trip and moves nothing
          const again = await syncWith(replicas[0]!, localTransport(replicas[n - 1]!));
          expect({ rounds: again.rounds, pulled: again.pulled, pushed: again.pushed }).toEqual({ rounds: 1, pulled: 0, pushed: 0 });
        },
      ),
      { numRuns: 200 },
    );
  }, 600_000);
});
