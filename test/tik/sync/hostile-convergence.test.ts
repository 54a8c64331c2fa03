import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Instant, Uuid, kw } from '../../../src/tik/edn/value.js';
import { TikError } from '../../../src/tik/errors.js';
import { mintEvent } from '../../../src/tik/kernel/index.js';
import { FileStore } from '../../../src/tik/store/file/file-store.js';
import { sha256Id } from '../../../src/tik/store/store-names.js';
import { encodeBundle, localTransport, syncWith, type Bundle } from '../../../src/tik/sync/index.js';
import { SyncResponder } from '../../../src/tik/sync/responder.js';
import { cleanup, supportStore, tik } from '../cli/harness.js';
import { ednMapOf } from './edn-helpers.js';

// Law (issue 13 acceptance): after any interleaving of honest writes, syncs and hostile pushes,
// the honest replicas hold identical event sets and identical `ls --all --json` once every pair
// has synced. The hostile peer pushes orphans, non-canonical copies, one-byte sidecars, stray
// blobs and creates pinned to unknown definitions; none of it may reach an honest replica.

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));
const N = 3;

type Op =
  | { kind: 'new'; r: number }
  | { kind: 'set'; r: number; v: number }
  | { kind: 'sync'; a: number; b: number }
  | { kind: 'hostile'; r: number; how: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('new' as const), r: fc.nat({ max: N - 1 }) }),
  fc.record({ kind: fc.constant('set' as const), r: fc.nat({ max: N - 1 }), v: fc.nat({ max: 3 }) }),
  fc.record({ kind: fc.constant('sync' as const), a: fc.nat({ max: N - 1 }), b: fc.nat({ max: N - 1 }) }),
  fc.record({ kind: fc.constant('hostile' as const), r: fc.nat({ max: N - 1 }), how: fc.nat({ max: 4 }) }),
);

const STRAY = '018f2f6e-7c1a-7000-8000-00000000dead';
const at = new Instant(Date.parse('2026-07-08T12:00:00Z'));

async function hostileBundle(store: FileStore, how: number): Promise<Bundle> {
  const empty: Bundle = { processes: [], blobs: [], events: [], sidecars: [] };
  const tickets = await store.ticketIds();
  const t = tickets[0];
  const first = t === undefined ? undefined : (await store.events(t))[0];
  const mint = (ticket: string, type: string, parents: string[], body: ReturnType<typeof ednMapOf>) => {
    const m = mintEvent({ ticket: new Uuid(ticket), type: kw(type), actor: 'mallory', at, parents, body });
    return { ticket, id: m.event.id, bytes: Buffer.from(m.text, 'utf8') };
  };
  switch (how) {
    case 0:
      return { ...empty, events: [mint(STRAY, 'fact/assert', [sha256Id('nothing')], ednMapOf({ 'fact/path': [kw('priority')], 'fact/value': kw('high') }))] };
    case 1: {
      if (first === undefined || t === undefined) return empty;
      const bytes = Buffer.concat([Buffer.from(first.bytes), Buffer.from('\n')]);
      return { ...empty, events: [{ ticket: t, id: sha256Id(bytes), bytes }] };
    }
    case 2:
      if (first === undefined || t === undefined) return empty;
      return { ...empty, sidecars: [{ ticket: t, name: `${first.id}.sig.00000000000000aa`, bytes: Buffer.from('x') }] };
    case 3: {
      if (first === undefined || t === undefined) return empty;
      const blob = Buffer.from('stray');
      return { ...empty, events: [mint(t, 'artifact/attach', [first.id], ednMapOf({ 'artifact/path': 'x', 'artifact/hash': sha256Id(blob) }))], blobs: [{ ticket: STRAY, bytes: blob }] };
    }
    default:
      return { ...empty, events: [mint(STRAY, 'ticket/create', [], ednMapOf({ 'ticket/title': 'x', 'ticket/process': kw('support-request'), 'ticket/process-version': 1n, 'ticket/process-hash': sha256Id('unknown') }))] };
  }
}

const eventSet = async (s: FileStore): Promise<string[]> => (await s.allEventIds()).map((e) => `${e.ticket}/${e.id}`).sort();

describe('honest replicas converge whatever a hostile peer pushes', () => {
  it('law: identical event sets and identical ls --all --json after every pair has synced', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 14 }), async (ops) => {
        const roots = await Promise.all(Array.from({ length: N }, () => supportStore()));
        dirs.push(...roots);
        const stores = roots.map((r) => new FileStore(r));
        for (const o of ops) {
          if (o.kind === 'new') expect((await tik(roots[o.r]!, ['new', 'support-request'])).code).toBe(0);
          else if (o.kind === 'set') {
            const t = (await stores[o.r]!.ticketIds())[0];
            if (t !== undefined) expect((await tik(roots[o.r]!, ['set', t, `priority=${['low', 'medium', 'high', 'critical'][o.v]}`])).code).toBe(0);
          } else if (o.kind === 'sync') {
            if (o.a !== o.b) await syncWith(stores[o.a]!, localTransport(stores[o.b]!));
          } else {
            try {
              await new SyncResponder(stores[o.r]!).push(encodeBundle(await hostileBundle(stores[o.r]!, o.how)));
            } catch (e) {
              expect(e).toBeInstanceOf(TikError);
            }
          }
        }
        for (let round = 0; round < 2; round++) for (let a = 0; a < N; a++) for (let b = 0; b < N; b++) if (a !== b) await syncWith(stores[a]!, localTransport(stores[b]!));
        const sets = await Promise.all(stores.map(eventSet));
        for (const s of sets) expect(s).toEqual(sets[0]);
        expect(sets[0]!.some((k) => k.startsWith(STRAY))).toBe(false);
        const ls = await Promise.all(roots.map((r) => tik(r, ['ls', '--all', '--json'])));
        for (const l of ls) {
          expect(l.code).toBe(0);
          expect(l.stdout).toBe(ls[0]!.stdout);
        }
      }),
      { numRuns: 6, seed: 13 },
    );
  }, 180_000);
});
