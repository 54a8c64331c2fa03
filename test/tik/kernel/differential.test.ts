// Differential tests: the incremental kernel against a naive reference written plainly here
// (in the spirit of upstream's test/tik/reference.clj) — replay every prefix from scratch with
// the same clamp, and a spec-literal reducer for fact statuses.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ednEquals, emit } from '../../../src/tik/edn/index.js';
import { Instant, kw, type EdnValue } from '../../../src/tik/edn/value.js';
import {
  evaluateGuards,
  evolve,
  effectiveReached,
  factStatus,
  foldOrder,
  reduce,
  TicketFold,
  type ProcessDef,
  type Roles,
  type TicketState,
  type TikEvent,
} from '../../../src/tik/kernel/index.js';
import { PATHS, build, historyArb, nowArb } from './arbitrary.js';
import { defFromText, loadDef, path, registerRoles } from './builders.js';

// ---- naive stage derivation: every prefix reduced from scratch, one sweep at a time ----

function naiveFixpoint(def: ProcessDef, state: TicketState, t: Instant, roles: Roles, seed: ReadonlySet<string>): Set<string> {
  let r = new Set(seed);
  for (;;) {
    const snapshot = new Set(r);
    const add = def.stages.filter(
      (s) =>
        !snapshot.has(s.key) &&
        s.after.every((a) => snapshot.has(a.toString())) &&
        evaluateGuards(s.guards, { state, def, now: t, reached: snapshot, roles }).satisfied,
    );
    if (add.length === 0) return r;
    r = new Set([...r, ...add.map((s) => s.key)]);
  }
}

function naiveEvolve(def: ProcessDef, events: readonly TikEvent[], now: Instant, roles: Roles): { steps: string[]; final: string } {
  const ordered = foldOrder(events);
  const sticky = new Set(def.stages.filter((s) => s.sticky).map((s) => s.key));
  let ever = new Set<string>();
  const steps: string[] = [];
  for (let i = 0; i < ordered.length; i++) {
    const e = ordered[i] as TikEvent;
    const state = reduce(ordered.slice(0, i + 1)); // from scratch
    const t = new Instant(Math.min(e.at.ms, now.ms));
    const r = naiveFixpoint(def, state, t, roles, ever);
    ever = new Set([...ever, ...[...r].filter((s) => sticky.has(s))]);
    steps.push([...r].sort().join(' '));
  }
  const final = naiveFixpoint(def, reduce(ordered), now, roles, ever);
  return { steps, final: [...final].sort().join(' ') };
}

// ---- naive reducer for one path, straight from §3.3–3.6 ----

interface NWrite {
  kind: 'assert' | 'retract';
  value?: EdnValue;
  event: string;
}

function ancestorsOf(id: string, parents: Map<string, readonly string[]>): Set<string> {
  const out = new Set<string>();
  const visit = (x: string): void => {
    for (const p of parents.get(x) ?? []) {
      if (out.has(p)) continue;
      out.add(p);
      visit(p);
    }
  };
  visit(id);
  return out;
}

function naiveStatus(events: readonly TikEvent[], dotted: string): string {
  const key = emit(path(dotted));
  const parents = new Map<string, readonly string[]>();
  let cur: { kind: 'value'; value: EdnValue; by: string } | { kind: 'retracted'; by: string } | undefined;
  let exists = false;
  let disputes: { by: string; reason: EdnValue; rejected?: EdnValue; has: boolean }[] = [];
  const writes: NWrite[] = [];
  let linear = true;
  for (const e of foldOrder(events)) {
    parents.set(e.id, e.parents);
    const p = e.body.get(kw('fact/path'));
    if (p === undefined || emit(p) !== key) continue;
    const type = e.type.toString();
    if (type === ':fact/assert') {
      const v = e.body.get(kw('fact/value')) ?? null;
      disputes = disputes.filter((d) => d.has && ednEquals(d.rejected ?? null, v));
      cur = { kind: 'value', value: v, by: e.actor };
      exists = true;
      if (writes.length > 0 && linear) linear = ancestorsOf(e.id, parents).has((writes.at(-1) as NWrite).event);
      writes.push({ kind: 'assert', value: v, event: e.id });
    } else if (type === ':fact/retract') {
      disputes = [];
      cur = { kind: 'retracted', by: e.actor };
      exists = true;
      if (writes.length > 0 && linear) linear = ancestorsOf(e.id, parents).has((writes.at(-1) as NWrite).event);
      writes.push({ kind: 'retract', event: e.id });
    } else if (type === ':fact/dispute') {
      if (e.body.get(kw('dispute/withdraw?')) === true) {
        if (exists) disputes = disputes.filter((d) => d.by !== e.actor);
      } else {
        const reason = e.body.get(kw('dispute/reason')) ?? null;
        disputes.push(cur?.kind === 'value' ? { by: e.actor, reason, rejected: cur.value, has: true } : { by: e.actor, reason, has: false });
        exists = true;
      }
    }
  }
  if (!exists) return 'absent';
  if (disputes.length > 0) return `disputed ${(disputes[0] as { by: string }).by}`;
  if (writes.length >= 2 && !linear) {
    const maximal = writes.filter((w) => !writes.some((o) => o !== w && ancestorsOf(o.event, parents).has(w.event)));
    const outcomes = new Set(maximal.map((w) => (w.kind === 'assert' ? `v${emit(w.value ?? null)}` : 'r')));
    if (maximal.length > 1 && outcomes.size > 1) return `conflicted ${maximal.map((w) => w.event).sort().join(',')}`;
  }
  if (cur?.kind === 'retracted') return `retracted ${cur.by}`;
  if (cur?.kind === 'value') return `present ${emit(cur.value)} ${cur.by}`;
  return 'absent';
}

function kernelStatus(state: TicketState, dotted: string): string {
  const s = factStatus(state, path(dotted));
  switch (s.status) {
    case 'absent':
      return 'absent';
    case 'disputed':
      return `disputed ${s.by}`;
    case 'conflicted':
      return `conflicted ${s.claims.map((c) => c.event).sort().join(',')}`;
    case 'retracted':
      return `retracted ${s.by}`;
    case 'present':
      return `present ${emit(s.value)} ${s.by}`;
  }
}

// A definition exercising sticky stages, both time guards, roles, :or, and stratified negation.
const PROP = defFromText(`{:process/id :prop :process/version 1 :process/guard-vocab 2
  :process/roles {:triager {:members ["seb"]}}
  :process/stages [
   {:stage/id :open}
   {:stage/id :tagged :after [:open] :guards [[:fact [:category]]]}
   {:stage/id :signed :after [:tagged] :stage/sticky? true :guards [[:signed-by :triager [:category]] [:fact= [:severity] :high]]}
   {:stage/id :aged :after [:open] :stage/sticky? true :guards [[:elapsed-since :ticket/create "PT24H"] [:not [:fact [:severity]]]]}
   {:stage/id :fresh :after [:open] :guards [[:attested-within :ci "PT6H"]]}
   {:stage/id :done :after [:signed] :guards [[:or [:artifact "repro/"] [:stage-reached :aged]] [:not [:stage-reached :fresh]]]}
   {:stage/id :acked :after [:tagged] :stage/sticky? true :guards [[:fact= [:customer :ack] true]]}]}`);
const SUPPORT = loadDef('processes/support-request.edn');

describe('differential: incremental evolve vs naive prefix replay', () => {
  for (const [name, def, roles] of [
    ['support-request', SUPPORT, registerRoles(SUPPORT)],
    ['a sticky/time-heavy definition', PROP, PROP.roles],
  ] as const) {
    it(`evolve agrees with the naive reference at every step and at now (${name})`, () => {
      fc.assert(
        fc.property(historyArb(16), nowArb, (ops, nowMs) => {
          const events = build(ops, name === 'support-request' ? 'support-request' : 'prop');
          const now = new Instant(nowMs);
          const ref = naiveEvolve(def, events, now, roles);
          const ev = evolve(def, events, now, roles);
          expect(ev.timeline.map((s) => [...s.reached].sort().join(' '))).toEqual(ref.steps);
          expect([...effectiveReached(def, events, now, roles)].sort().join(' ')).toBe(ref.final);
        }),
        { numRuns: 80 },
      );
    });
  }
});

describe('differential: reducer vs a spec-literal fact status', () => {
  it('every path has the same status after every prefix', () => {
    fc.assert(
      fc.property(historyArb(16), (ops) => {
        const ordered = foldOrder(build(ops));
        for (let i = 1; i <= ordered.length; i++) {
          const prefix = ordered.slice(0, i);
          const state = reduce(prefix);
          for (const p of PATHS) expect(kernelStatus(state, p)).toBe(naiveStatus(prefix, p));
        }
      }),
      { numRuns: 80 },
    );
  });

  it('one incremental fold read after every event agrees with the reference on every prefix', () => {
    fc.assert(
      fc.property(historyArb(20), (ops) => {
        const ordered = foldOrder(build(ops));
        const fold = new TicketFold();
        for (let i = 0; i < ordered.length; i++) {
          fold.apply(ordered[i] as TikEvent);
          const prefix = ordered.slice(0, i + 1);
          for (const p of PATHS) expect(kernelStatus(fold, p)).toBe(naiveStatus(prefix, p));
        }
      }),
      { numRuns: 100 },
    );
  });

  it('the conflict memo agrees with a fresh fold when read after every event', () => {
    fc.assert(
      fc.property(historyArb(16), (ops) => {
        const events = build(ops);
        const ev = evolve(SUPPORT, events, new Instant(Number.MAX_SAFE_INTEGER), registerRoles(SUPPORT));
        for (const p of PATHS) expect(kernelStatus(ev.state, p)).toBe(naiveStatus(events, p));
      }),
      { numRuns: 60 },
    );
  });
});
