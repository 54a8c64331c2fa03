// fast-check generators of random single-ticket histories: concurrent writes (random parent
// subsets), backdated and tied instants, disputes and withdrawals, retractions, attaches and
// attestations — minted for real, so ids and bytes are genuine.
import fc from 'fast-check';
import { kw, type EdnValue } from '../../../src/tik/edn/value.js';
import type { TikEvent } from '../../../src/tik/kernel/index.js';
import { HOUR, T0, Ticket } from './builders.js';

export const PATHS = ['category', 'severity', 'resolution.ref', 'customer.ack'] as const;
const VALUES: Record<string, EdnValue[]> = {
  category: [kw('technical'), kw('billing'), kw('technical')],
  severity: [kw('high'), kw('low')],
  'resolution.ref': ['abcdef123456', 'short'],
  'customer.ack': [true, false],
};
// seb is the triager in the register; weighted so stages are actually reached.
const ACTORS = ['seb', 'seb', 'seb', 'billing', 'rando', 'customer'];

export interface Op {
  readonly kind: number;
  readonly path: number;
  readonly value: number;
  readonly actor: number;
  /** Offset from the create, ms. */
  readonly dt: number;
  readonly parents: readonly number[];
  /** Chain to the previous event (a linear history) instead of the picked parents. */
  readonly chain: boolean;
}

const opArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.integer({ min: 0, max: 9 }),
  path: fc.nat(PATHS.length - 1),
  value: fc.nat(2),
  actor: fc.nat(ACTORS.length - 1),
  // Whole hours mostly (ties happen), sometimes a ms offset.
  // Mostly increasing-ish offsets; any offset may be backdated relative to its parents.
  dt: fc.oneof(
    fc.integer({ min: 0, max: 60 }).map((h) => h * HOUR),
    fc.integer({ min: 0, max: 60 * HOUR }),
  ),
  parents: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
  chain: fc.integer({ min: 0, max: 9 }).map((n) => n < 6),
});

/** A "happy path" prefix (triage, repro, resolution, ack) so stages — sticky ones too — get reached. */
const HAPPY: readonly Op[] = [
  { kind: 0, path: 0, value: 0, actor: 0, dt: 1 * HOUR, parents: [], chain: true },
  { kind: 0, path: 1, value: 0, actor: 0, dt: 2 * HOUR, parents: [], chain: true },
  { kind: 7, path: 0, value: 0, actor: 0, dt: 3 * HOUR, parents: [], chain: true },
  { kind: 0, path: 2, value: 0, actor: 0, dt: 4 * HOUR, parents: [], chain: true },
  { kind: 0, path: 3, value: 0, actor: 5, dt: 5 * HOUR, parents: [], chain: true },
];

/** Random histories; half start with the happy path, the random ops then disturb it. */
export const historyArb = (maxOps = 14): fc.Arbitrary<readonly Op[]> =>
  fc.tuple(fc.boolean(), fc.integer({ min: 0, max: HAPPY.length }), fc.array(opArb, { maxLength: maxOps })).map(([happy, n, ops]) =>
    happy ? [...HAPPY.slice(0, n), ...ops] : ops,
  );

export const nowArb: fc.Arbitrary<number> = fc.integer({ min: 0, max: 80 }).map((h) => T0 + h * HOUR);

/** Mints a history: one create at T0, then each op with parents picked among earlier events. */
export function build(ops: readonly Op[], process = 'support-request'): TikEvent[] {
  const t = new Ticket(process);
  t.create('gherkin', { at: T0 });
  for (const op of ops) {
    const known = t.events;
    const parents = op.chain
      ? [(known[known.length - 1] as TikEvent).id]
      : [...new Set(op.parents.map((i) => (known[i % known.length] as TikEvent).id))];
    const o = { at: T0 + op.dt, parents };
    const p = PATHS[op.path] as string;
    const v = (VALUES[p] as EdnValue[])[op.value % (VALUES[p] as EdnValue[]).length] as EdnValue;
    const actor = ACTORS[op.actor] as string;
    switch (op.kind) {
      case 0:
      case 1:
      case 2:
      case 3:
        t.assert(actor, p, v, o);
        break;
      case 4:
        t.retract(actor, p, o, op.value === 0 ? undefined : 'because');
        break;
      case 5:
        t.dispute(actor, p, op.value === 2 ? null : 'no', o);
        break;
      case 6:
        t.withdraw(actor, p, o);
        break;
      case 7:
        t.attach(actor, op.value === 0 ? 'repro/crash.sh' : 'notes.txt', o);
        break;
      case 8:
        t.attest(actor, op.value === 0 ? kw('ci') : kw('sbom'), o);
        break;
      default:
        t.assert(actor, p, v, o);
    }
  }
  return t.events;
}
