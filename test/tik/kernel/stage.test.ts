import { describe, expect, it } from 'vitest';
import { Instant, kw } from '../../../src/tik/edn/value.js';
import { TikError } from '../../../src/tik/errors.js';
import { ancestorsOf, currentStages, downstream, effectiveReached, evaluateGuards, evolve, reduce } from '../../../src/tik/kernel/index.js';
import { HOUR, T0, Ticket, defFromText, loadDef, registerRoles } from './builders.js';

const SUPPORT = loadDef('processes/support-request.edn');
const ROLES = registerRoles(SUPPORT);
const reachedAt = (t: Ticket, now: number, def = SUPPORT, roles = ROLES): string[] => [...effectiveReached(def, t.events, new Instant(now), roles)].sort();

function triaged(): Ticket {
  const t = new Ticket();
  t.create();
  t.assert('seb', 'category', kw('technical'));
  t.assert('seb', 'severity', kw('high'));
  return t;
}

describe('synchronous sweeps (§6.1)', () => {
  const SWEEP = loadDef('processes/sweep-order.edn');

  it('sweep-order derives {a b c}: :d sees :c in its first enabled sweep', () => {
    const t = new Ticket('sweep-order');
    t.create();
    expect(reachedAt(t, T0, SWEEP, SWEEP.roles)).toEqual([':a', ':b', ':c']);
  });

  it('MonotonePositive: with a positive guard instead of the negation, :d is reached too', () => {
    const def = defFromText(`{:process/id :x :process/version 1 :process/stages [
      {:stage/id :a} {:stage/id :b :after [:a]} {:stage/id :c :after [:a]} {:stage/id :d :after [:b] :guards [[:stage-reached :c]]}]}`);
    const t = new Ticket('x');
    t.create();
    expect(reachedAt(t, T0, def, def.roles)).toEqual([':a', ':b', ':c', ':d']);
  });

  it('ChaoticFixpoint: firing one enabled stage at a time can reach :d, so it is not the semantics', () => {
    const t = new Ticket('sweep-order');
    t.create();
    const state = reduce(t.events);
    // Fire a, then b, then d (enabled: :c not yet reached), then c.
    const reached = new Set<string>();
    for (const k of [':a', ':b', ':d', ':c']) {
      const s = SWEEP.stageByKey.get(k);
      if (!s || !s.afterKeys.every((x) => reached.has(x))) continue;
      if (evaluateGuards(s.guards, { state, def: SWEEP, now: new Instant(T0), reached, roles: SWEEP.roles }).satisfied) reached.add(k);
    }
    expect([...reached].sort()).toEqual([':a', ':b', ':c', ':d']);
    expect(reachedAt(t, T0, SWEEP, SWEEP.roles)).toEqual([':a', ':b', ':c']);
  });

  it('a definition with no events still derives its root stages', () => {
    expect([...effectiveReached(SWEEP, [], new Instant(T0), SWEEP.roles)].sort()).toEqual([':a', ':b', ':c']);
  });

  it('stage order in the definition does not matter', () => {
    const a = defFromText(`{:process/id :x :process/version 1 :process/stages [
      {:stage/id :a} {:stage/id :b :after [:a]} {:stage/id :c :after [:a]} {:stage/id :d :after [:b] :guards [[:not [:stage-reached :c]]]}]}`);
    const b = defFromText(`{:process/id :x :process/version 1 :process/stages [
      {:stage/id :d :after [:b] :guards [[:not [:stage-reached :c]]]} {:stage/id :c :after [:a]} {:stage/id :b :after [:a]} {:stage/id :a}]}`);
    const t = new Ticket('x');
    t.create();
    expect(reachedAt(t, T0, a, a.roles)).toEqual(reachedAt(t, T0, b, b.roles));
  });

  it('a stage whose guards hold is not reached unless its :after stages are', () => {
    const def = defFromText(`{:process/id :x :process/version 1 :process/stages [
      {:stage/id :a :guards [[:fact [:go]]]} {:stage/id :b :after [:a] :guards []}]}`);
    const t = new Ticket('x');
    t.create();
    expect(reachedAt(t, T0, def, def.roles)).toEqual([]);
  });

  it('an unknown guard operator makes derivation throw', () => {
    const def = defFromText(`{:process/id :x :process/version 1 :process/stages [{:stage/id :a :guards [[:when true]]}]}`);
    const t = new Ticket('x');
    t.create();
    expect(() => effectiveReached(def, t.events, new Instant(T0), def.roles)).toThrow(TikError);
  });
});

describe('stages derive from evidence', () => {
  it('a fresh ticket reaches only :received', () => {
    const t = new Ticket();
    t.create();
    expect(reachedAt(t, t.now)).toEqual([':received']);
  });

  it('category and severity from a triager derive :triaged', () => {
    const t = triaged();
    expect(reachedAt(t, t.now)).toEqual([':received', ':triaged']);
  });

  it('the same facts from a non-member derive nothing', () => {
    const t = new Ticket();
    t.create();
    t.assert('rando', 'category', kw('technical'));
    t.assert('rando', 'severity', kw('high'));
    expect(reachedAt(t, t.now)).toEqual([':received']);
  });

  it('a dispute regresses :triaged, a corrected assert restores it', () => {
    const t = triaged();
    t.dispute('billing', 'category', 'not technical after all');
    expect(reachedAt(t, t.now)).toEqual([':received']);
    t.assert('seb', 'category', kw('billing'));
    expect(reachedAt(t, t.now)).toContain(':triaged');
  });

  it('parallel tips are current together', () => {
    const t = triaged();
    t.assert('seb', 'resolution.ref', 'abcdef123456');
    t.attach('seb', 'repro/crash.sh');
    const r = effectiveReached(SUPPORT, t.events, new Instant(t.now), ROLES);
    expect([...currentStages(SUPPORT, r)].sort()).toEqual([':reproducible', ':resolved']);
  });
});

describe('sticky carry (§6.2)', () => {
  function closed(): Ticket {
    const t = triaged();
    t.attach('seb', 'repro/crash.sh');
    t.assert('seb', 'resolution.ref', 'abcdef123456');
    t.assert('customer', 'customer.ack', true);
    return t;
  }

  it('retracting the ack does not un-close', () => {
    const t = closed();
    t.retract('customer', 'customer.ack');
    expect(reachedAt(t, t.now)).toContain(':closed');
  });

  it('non-sticky stages regress', () => {
    const t = closed();
    t.retract('seb', 'resolution.ref');
    const r = reachedAt(t, t.now);
    expect(r).not.toContain(':resolved');
    expect(r).toContain(':closed');
  });

  it('a sticky seed counts even when its :after stages no longer hold', () => {
    const t = closed();
    t.dispute('billing', 'category', 'no');
    const r = effectiveReached(SUPPORT, t.events, new Instant(t.now), ROLES);
    expect([...r].sort()).toEqual([':closed', ':received']);
    expect([...currentStages(SUPPORT, r)].sort()).toEqual([':closed']);
  });

  it('a backdated dispute can un-reach a sticky stage; one dated after cannot', () => {
    const before = closed();
    const ackAt = before.now;
    // A dispute of the category dated before the ack: :triaged fails from then on, so :closed never fires.
    before.dispute('billing', 'category', 'no', { at: ackAt - 2, parents: [before.events[0]?.id as string] });
    expect(reachedAt(before, ackAt + 10)).not.toContain(':closed');
    const after = closed();
    after.dispute('billing', 'category', 'no', { at: ackAt + 1 });
    expect(reachedAt(after, ackAt + 10)).toContain(':closed');
  });

  it('evolve records a timeline entry per event with its unclamped instant', () => {
    const t = closed();
    const ev = evolve(SUPPORT, t.events, new Instant(t.now), ROLES);
    expect(ev.timeline.map((x) => x.eventId)).toEqual(t.events.map((e) => e.id));
    expect([...ev.ever]).toEqual([':closed']);
    expect([...(ev.timeline.at(-1)?.reached ?? [])]).toContain(':closed');
  });
});

describe('time and the clamp (§6.2, §6.4)', () => {
  it('escalation derives purely because time moved', () => {
    const t = new Ticket();
    t.create();
    expect(reachedAt(t, T0 + 47 * HOUR)).not.toContain(':escalated');
    expect(reachedAt(t, T0 + 49 * HOUR)).toContain(':escalated');
  });

  it('a category asserted before the window blocks escalation', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'category', kw('technical'));
    expect(reachedAt(t, T0 + 49 * HOUR)).not.toContain(':escalated');
  });

  it('a postdated event cannot satisfy :elapsed-since early; the clamp lifts once now passes it', () => {
    const def = defFromText(`{:process/id :x :process/version 1 :process/stages [
      {:stage/id :open} {:stage/id :late :after [:open] :stage/sticky? true :guards [[:elapsed-since :ticket/create "PT48H"]]}]}`);
    const t = new Ticket('x');
    t.create();
    t.assert('seb', 'note', 'from the future', { at: T0 + 100 * HOUR });
    // At now = +1h the postdated event is clamped to now: not elapsed, sticky not carried.
    expect(reachedAt(t, T0 + HOUR, def, def.roles)).toEqual([':open']);
    expect(reachedAt(t, T0 + 49 * HOUR, def, def.roles)).toEqual([':late', ':open']);
  });

  it('each step derives at min(e.at, now): a sticky time stage cannot fire before its blocker lands', () => {
    const def = defFromText(`{:process/id :x :process/version 1 :process/stages [
      {:stage/id :open} {:stage/id :aged :after [:open] :stage/sticky? true
                          :guards [[:elapsed-since :ticket/create "PT24H"] [:not [:fact [:severity]]]]}]}`);
    const t = new Ticket('x');
    t.create();
    t.assert('seb', 'severity', kw('high'), { at: T0 + 2 * HOUR });
    // Deriving the create at now (+100h) would carry :aged forever; at its own instant it is 0h old.
    expect(reachedAt(t, T0 + 100 * HOUR, def, def.roles)).toEqual([':open']);
    // Sticky reaches are only captured at event steps: with nothing between 24h and 30h, never.
    const late = new Ticket('x');
    late.create();
    late.assert('seb', 'severity', kw('high'), { at: T0 + 30 * HOUR });
    expect(reachedAt(late, T0 + 100 * HOUR, def, def.roles)).toEqual([':open']);
    // An event at 25h derives at 25h: old enough, no severity yet — :aged sticks.
    const noted = new Ticket('x');
    noted.create();
    noted.assert('ann', 'note', 'anyone?', { at: T0 + 25 * HOUR });
    noted.assert('seb', 'severity', kw('high'), { at: T0 + 30 * HOUR });
    expect(reachedAt(noted, T0 + 100 * HOUR, def, def.roles)).toEqual([':aged', ':open']);
  });

  it('later-dated events are clamped, not excluded: their facts still count', () => {
    const t = triaged();
    const at = t.now;
    t.assert('seb', 'resolution.ref', 'abcdef123456', { at: at + 10 * HOUR });
    t.attach('seb', 'repro/crash.sh', { at: at + 10 * HOUR + 1 });
    expect(reachedAt(t, at + 1)).toContain(':resolved');
  });
});

describe('the :after graph (§6.3)', () => {
  it('ancestors are the transitive :after closure', () => {
    expect([...(ancestorsOf(SUPPORT).get(':closed') ?? [])].sort()).toEqual([':received', ':resolved', ':triaged']);
  });

  it('downstream lists the stages that descend from a stage', () => {
    expect(downstream(SUPPORT, ':triaged')).toEqual([':closed', ':reproducible', ':resolved']);
    expect(downstream(SUPPORT, ':closed')).toEqual([]);
  });

  it('current stages drop every ancestor of a reached stage', () => {
    expect([...currentStages(SUPPORT, new Set([':received', ':triaged', ':resolved', ':reproducible', ':closed']))].sort()).toEqual([
      ':closed',
      ':reproducible',
    ]);
  });
});
