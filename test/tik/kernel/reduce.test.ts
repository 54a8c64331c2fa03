import { describe, expect, it } from 'vitest';
import { emit } from '../../../src/tik/edn/index.js';
import { Instant, Uuid, kw } from '../../../src/tik/edn/value.js';
import { eventFromMap, factHistory, factMap, factStatus, heads, missingParents, reduce, roots } from '../../../src/tik/kernel/index.js';
import { Ticket, at, body, path, T0 } from './builders.js';

const status = (t: Ticket, dotted: string) => factStatus(reduce(t.events), path(dotted));

describe('reducer: asserts and retracts', () => {
  it('an assert makes a fact present with its author and instant', () => {
    const t = new Ticket();
    t.create();
    const e = t.assert('seb', 'category', kw('technical'));
    expect(status(t, 'category')).toEqual({ status: 'present', value: kw('technical'), by: 'seb', at: e.at, event: e.id });
  });

  it('a later assert supersedes and the old entry goes to history', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'category', kw('technical'));
    t.assert('seb', 'category', kw('billing'));
    const s = reduce(t.events);
    expect(factStatus(s, path('category'))).toMatchObject({ status: 'present', value: kw('billing') });
    const entry = s.facts.get('[:category]');
    expect(entry && factHistory(entry).map((h) => (h.kind === 'value' ? h.value : null))).toEqual([kw('technical')]);
  });

  it('a retract withdraws the fact and reports who and why', () => {
    const t = new Ticket();
    t.create();
    t.assert('customer', 'customer.ack', true);
    t.retract('customer', 'customer.ack', {}, 'misclick');
    expect(status(t, 'customer.ack')).toMatchObject({ status: 'retracted', by: 'customer', note: 'misclick' });
  });

  it('a retract without a reason has a nil note', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'severity', kw('high'));
    t.retract('seb', 'severity');
    expect(status(t, 'severity')).toMatchObject({ status: 'retracted', note: null });
  });

  it('a never-written path is absent', () => {
    const t = new Ticket();
    t.create();
    expect(status(t, 'nothing')).toEqual({ status: 'absent' });
  });

  it('fact-map holds present facts only', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'category', kw('technical'));
    t.assert('seb', 'severity', kw('high'));
    t.retract('seb', 'severity');
    t.dispute('x', 'other', 'why');
    expect([...factMap(reduce(t.events)).entries()].map(([k, v]) => [k, emit(v.value)])).toEqual([['[:category]', ':technical']]);
  });
});

describe('reducer: disputes (§3.4)', () => {
  it('a dispute makes a present fact disputed, reporting by/at/note', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'category', kw('technical'));
    const d = t.dispute('billing', 'category', 'not technical after all');
    expect(status(t, 'category')).toMatchObject({ status: 'disputed', by: 'billing', at: d.at, note: 'not technical after all' });
  });

  it('a dispute survives a verbatim re-assert', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'category', kw('technical'));
    t.dispute('billing', 'category', 'no');
    t.assert('seb', 'category', kw('technical'));
    expect(status(t, 'category').status).toBe('disputed');
  });

  it('a different value clears the dispute', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'category', kw('technical'));
    t.dispute('billing', 'category', 'no');
    t.assert('seb', 'category', kw('billing'));
    expect(status(t, 'category')).toMatchObject({ status: 'present', value: kw('billing') });
  });

  it('once cleared a dispute never revives (A, dispute, B, A → present)', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'category', kw('technical'));
    t.dispute('billing', 'category', 'no');
    t.assert('seb', 'category', kw('billing'));
    t.assert('seb', 'category', kw('technical'));
    expect(status(t, 'category')).toMatchObject({ status: 'present', value: kw('technical') });
  });

  it('a dispute on an absent path is cleared by the first assert', () => {
    const t = new Ticket();
    t.create();
    t.dispute('billing', 'category', 'pre-emptive');
    expect(status(t, 'category')).toMatchObject({ status: 'disputed' });
    t.assert('seb', 'category', kw('technical'));
    expect(status(t, 'category')).toMatchObject({ status: 'present' });
  });

  it('a dispute on a retracted path has no rejected value, so any assert clears it', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'category', kw('technical'));
    t.retract('seb', 'category');
    t.dispute('billing', 'category', 'hm');
    expect(status(t, 'category').status).toBe('disputed');
    t.assert('seb', 'category', kw('technical'));
    expect(status(t, 'category').status).toBe('present');
  });

  it('a retract drops all disputes', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'category', kw('technical'));
    t.dispute('billing', 'category', 'no');
    t.retract('seb', 'category');
    expect(status(t, 'category').status).toBe('retracted');
  });

  it('disputes accumulate and the earliest live one is reported with the full list', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'category', kw('technical'));
    const d1 = t.dispute('billing', 'category', 'first');
    t.dispute('rando', 'category', 'second');
    const s = status(t, 'category');
    expect(s).toMatchObject({ status: 'disputed', by: 'billing', at: d1.at, note: 'first' });
    expect(s.status === 'disputed' && s.disputes.map((d) => d.reason)).toEqual(['first', 'second']);
  });

  it('a withdraw removes every dispute by that actor and keeps the others', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'category', kw('technical'));
    t.dispute('billing', 'category', 'one');
    t.dispute('rando', 'category', 'two');
    t.dispute('billing', 'category', 'three');
    t.withdraw('billing', 'category');
    expect(status(t, 'category')).toMatchObject({ status: 'disputed', by: 'rando', note: 'two' });
    t.withdraw('rando', 'category');
    expect(status(t, 'category')).toMatchObject({ status: 'present', value: kw('technical') });
  });

  it('a withdrawn dispute-only entry is absent', () => {
    const t = new Ticket();
    t.create();
    t.dispute('billing', 'category', 'early');
    t.withdraw('billing', 'category');
    expect(status(t, 'category')).toEqual({ status: 'absent' });
  });

  it('a nil dispute reason is kept as the note', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'category', kw('technical'));
    t.dispute('billing', 'category', null);
    expect(status(t, 'category')).toMatchObject({ status: 'disputed', note: null });
  });
});

describe('reducer: conflicts (§3.5)', () => {
  function fork(a: unknown, b: unknown) {
    const t = new Ticket();
    const c = t.create();
    const x = t.assert('seb', 'category', a as never, { parents: [c.id] });
    const y = t.assert('billing', 'category', b as never, { parents: [c.id] });
    return { t, c, x, y };
  }

  it('concurrent different values are conflicted, with both claims', () => {
    const { t, x, y } = fork(kw('technical'), kw('billing'));
    const s = status(t, 'category');
    expect(s.status).toBe('conflicted');
    expect(s.status === 'conflicted' && s.claims.map((c) => c.event).sort()).toEqual([x.id, y.id].sort());
    expect(s.status === 'conflicted' && s.claims.every((c) => c.kind === 'assert')).toBe(true);
  });

  it('concurrent agreement is not a conflict', () => {
    const { t } = fork(kw('high'), kw('high'));
    expect(status(t, 'category')).toMatchObject({ status: 'present', value: kw('high') });
  });

  it('a write that observed every competitor resolves the conflict', () => {
    const { t, x, y } = fork(kw('technical'), kw('billing'));
    t.assert('seb', 'category', kw('account'), { parents: [x.id, y.id] });
    expect(status(t, 'category')).toMatchObject({ status: 'present', value: kw('account') });
  });

  it('a retract that observed every competitor resolves it too', () => {
    const { t, x, y } = fork(kw('technical'), kw('billing'));
    t.retract('seb', 'category', { parents: [x.id, y.id] });
    expect(status(t, 'category').status).toBe('retracted');
  });

  it('an assert concurrent with a retract is conflicted', () => {
    const t = new Ticket();
    const c = t.create();
    t.assert('seb', 'category', kw('technical'), { parents: [c.id] });
    t.retract('billing', 'category', { parents: [c.id] });
    const s = status(t, 'category');
    expect(s.status === 'conflicted' && s.claims.map((w) => w.kind).sort()).toEqual(['assert', 'retract']);
  });

  it('ancestry is found through unrelated intermediate events', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'category', kw('technical'));
    t.assert('seb', 'severity', kw('high'));
    t.attach('seb', 'repro/x');
    t.assert('seb', 'category', kw('billing'));
    const s = reduce(t.events);
    expect(s.linearWrites.get('[:category]')).toBe(true);
    expect(factStatus(s, path('category'))).toMatchObject({ status: 'present', value: kw('billing') });
  });

  it('disputed beats conflicted', () => {
    const { t, x } = fork(kw('technical'), kw('billing'));
    t.dispute('rando', 'category', 'both wrong', { parents: [x.id] });
    expect(status(t, 'category').status).toBe('disputed');
  });

  it('a missing parent makes a linear history look concurrent', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'category', kw('technical'));
    const mid = t.assert('seb', 'severity', kw('high'));
    t.assert('seb', 'category', kw('billing'));
    const partial = t.events.filter((e) => e.id !== mid.id);
    expect(factStatus(reduce(partial), path('category')).status).toBe('conflicted');
    expect(missingParents(partial)).toEqual([mid.id]);
  });

  it('non-conflicted values follow (at, id) order, not the DAG', () => {
    const t = new Ticket();
    const c = t.create();
    // 'high' names 'low' as its parent but claims an earlier instant: fold order is high, low.
    const low = t.assert('seb', 'severity', kw('low'), { parents: [c.id], at: T0 + 10 });
    t.assert('seb', 'severity', kw('high'), { parents: [low.id], at: T0 + 5 });
    const s = reduce(t.events);
    // Not linear (when 'low' was folded, 'high' was not its ancestor) but once both are folded
    // 'low' is an ancestor of 'high': one maximal write, no conflict, and the value is the last
    // write in fold order.
    expect(s.linearWrites.get('[:severity]')).toBe(false);
    expect(factStatus(s, path('severity'))).toMatchObject({ status: 'present', value: kw('low') });
  });

  it('ancestry only sees events folded so far', () => {
    const t = new Ticket();
    const c = t.create();
    const x = t.assert('seb', 'category', kw('technical'), { parents: [c.id], at: T0 + 1 });
    // The merge point is postdated: until it is folded, the two asserts look concurrent.
    const merge = t.assert('seb', 'note', 'merge', { parents: [x.id], at: T0 + 100 });
    t.assert('billing', 'category', kw('billing'), { parents: [merge.id], at: T0 + 2 });
    const prefix = t.events.filter((e) => e.id !== merge.id);
    expect(factStatus(reduce(prefix), path('category')).status).toBe('conflicted');
    expect(factStatus(reduce(t.events), path('category'))).toMatchObject({ status: 'present', value: kw('billing') });
  });
});

describe('reducer: fold order, dedupe, other events', () => {
  it('duplicated events fold once', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'category', kw('technical'));
    const s = reduce([...t.events, ...t.events]);
    expect(s.log).toHaveLength(2);
  });

  it('folds by instant then id, whatever the input order', () => {
    const t = new Ticket();
    t.create();
    t.assert('seb', 'category', kw('technical'), { at: T0 + 100 });
    t.assert('seb', 'category', kw('billing'), { at: T0 + 50 });
    const s = reduce([...t.events].reverse());
    expect(s.log.map((e) => e.at.ms)).toEqual([T0, T0 + 50, T0 + 100]);
  });

  it('create sets title, process, pin and creator; a later create overwrites them', () => {
    const t = new Ticket();
    t.create('alice', {}, 'first');
    const s1 = reduce(t.events);
    expect(s1.title).toBe('first');
    expect(s1.process).toBe(kw('support-request'));
    expect(s1.createdBy).toBe('alice');
    expect(s1.createdAt?.ms).toBe(T0);
    t.create('bob', { at: T0 + 5 }, 'second');
    const s2 = reduce(t.events);
    expect(s2.title).toBe('second');
    expect(s2.createdBy).toBe('bob');
  });

  it('migrate re-pins version and hash and records the migration', () => {
    const t = new Ticket();
    t.create();
    t.migrate('seb', 2n, 'sha256-abc');
    const s = reduce(t.events);
    expect(s.processVersion).toBe(2n);
    expect(s.processHash).toBe('sha256-abc');
    expect(s.process).toBe(kw('support-request'));
    expect(s.migrations).toHaveLength(1);
  });

  it('the last attach of a path wins', () => {
    const t = new Ticket();
    t.create();
    t.attach('seb', 'repro/a');
    const e2 = t.attach('ann', 'repro/a');
    expect(reduce(t.events).artifacts.get('repro/a')).toMatchObject({ by: 'ann', event: e2.id });
  });

  it('unknown event types are kept in the log and parents index but change nothing', () => {
    const t = new Ticket();
    const c = t.create();
    const map = body({
      'event/ticket': t.ticket,
      'event/type': kw('future/thing'),
      'event/actor': 'x',
      'event/at': at(T0 + 1),
      'event/body': body({ 'fact/path': path('category'), 'fact/value': kw('billing') }),
    });
    const odd = eventFromMap(map, 'sha256-odd');
    const s = reduce([...t.events, odd]);
    expect(s.log.map((e) => e.id)).toEqual([c.id, 'sha256-odd']);
    expect(s.parents.has('sha256-odd')).toBe(true);
    expect(factStatus(s, path('category')).status).toBe('absent');
  });

  it('heads, roots and missing parents', () => {
    const t = new Ticket();
    const c = t.create();
    const a = t.assert('seb', 'category', kw('technical'), { parents: [c.id] });
    const b = t.assert('seb', 'severity', kw('high'), { parents: [c.id, 'sha256-gone'] });
    expect(roots(t.events)).toEqual([c.id]);
    expect(heads(t.events)).toEqual([a.id, b.id].sort());
    expect(missingParents(t.events)).toEqual(['sha256-gone']);
  });

  it('a ticket uuid and instant are carried verbatim', () => {
    const t = new Ticket();
    const c = t.create();
    expect(c.ticket).toEqual(new Uuid('018f2f6e-7c1a-7000-8000-000000000001'));
    expect(c.at).toEqual(new Instant(T0));
  });
});
