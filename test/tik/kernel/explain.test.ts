import { describe, expect, it } from 'vitest';
import { Instant, kw } from '../../../src/tik/edn/value.js';
import {
  blockFor,
  explain,
  listsAsMissing,
  onlyRoleMayProvide,
  type ExplainResult,
  type Reason,
} from '../../../src/tik/kernel/index.js';
import { HOUR, T0, Ticket, defFromText, loadDef, path, registerRoles } from './builders.js';

const SUPPORT = loadDef('processes/support-request.edn');
const ROLES = registerRoles(SUPPORT);
const ex = (t: Ticket, now = t.now, forActor?: string): ExplainResult =>
  explain(SUPPORT, t.events, new Instant(now), ROLES, forActor === undefined ? {} : { forActor });
const kinds = (rs: readonly Reason[]): string[] => rs.map((r) => r.kind);

function fresh(): Ticket {
  const t = new Ticket();
  t.create();
  return t;
}

describe('explain: frontier', () => {
  it('a fresh ticket knows exactly what triage needs', () => {
    const r = ex(fresh());
    expect(r.reached).toEqual([':received']);
    expect(r.blocks.map((b) => b.stage)).toEqual([':triaged', ':escalated']);
    expect(listsAsMissing(r, ':triaged', path('category'))).toBe(true);
    expect(listsAsMissing(r, ':triaged', path('severity'))).toBe(true);
    expect(listsAsMissing(r, ':triaged', path('resolution.ref'))).toBe(false);
  });

  it('lists distinct reasons: [:fact p] and [:signed-by r p] share one :fact/missing', () => {
    const b = blockFor(ex(fresh()), ':triaged');
    expect(b?.missing.filter((r) => r.kind === 'fact/missing' && r.path[0] === kw('category'))).toHaveLength(1);
    expect(b?.missing).toHaveLength(2);
  });

  it('partially satisfied stages report only the remainder and what holds', () => {
    const t = fresh();
    t.assert('seb', 'category', kw('technical'));
    const r = ex(t);
    expect(listsAsMissing(r, ':triaged', path('category'))).toBe(false);
    expect(listsAsMissing(r, ':triaged', path('severity'))).toBe(true);
    expect(blockFor(r, ':triaged')?.satisfied).toHaveLength(2);
  });

  it('the wrong actor is named, with the role that could act', () => {
    const t = fresh();
    t.assert('rando', 'category', kw('technical'));
    t.assert('rando', 'severity', kw('high'));
    const r = ex(t);
    expect(onlyRoleMayProvide(r, ':triaged', 'triager', path('category'))).toBe(true);
    expect(onlyRoleMayProvide(r, ':triaged', 'billing', path('category'))).toBe(false);
    expect(blockFor(r, ':triaged')?.missing).toEqual([{ kind: 'role/unsatisfied', role: kw('triager'), path: path('category'), by: 'rando' }]);
  });

  it('blocks lists the downstream stages; hints come from the definition', () => {
    const b = blockFor(ex(fresh()), ':triaged');
    expect(b?.blocks).toEqual([':closed', ':reproducible', ':resolved']);
    expect(b?.hint).toBe('kb/runbooks/support-request-triaged.md');
  });

  it('only frontier stages appear (every :after reached, stage unreached)', () => {
    const t = fresh();
    t.assert('seb', 'category', kw('technical'));
    t.assert('seb', 'severity', kw('high'));
    const r = ex(t);
    expect(r.blocks.map((b) => b.stage).sort()).toEqual([':escalated', ':reproducible', ':resolved']);
  });
});

describe('explain: ordering of :missing', () => {
  it('sorts by actionability: facts, then fact troubles, artifacts, roles, attestations, stages, time', () => {
    const def = defFromText(`{:process/id :o :process/version 1 :process/guard-vocab 2
      :process/roles {:r {:members ["x"]}}
      :process/stages [{:stage/id :s :guards [
        [:elapsed-since :ticket/create "P9D"] [:stage-reached :s] [:attested-within :sbom "P1D"]
        [:signed-by :r [:signed]] [:artifact "a/"] [:fact [:disputed]] [:fact [:missing]]]}]}`);
    const t = new Ticket('o');
    t.create();
    t.assert('y', 'signed', 1n);
    t.assert('y', 'disputed', 1n);
    t.dispute('z', 'disputed', 'no');
    const r = explain(def, t.events, new Instant(t.now), def.roles);
    expect(kinds(r.blocks[0]?.missing ?? [])).toEqual([
      'fact/missing',
      'fact/disputed',
      'artifact/missing',
      'role/unsatisfied',
      'attestation/missing',
      'stage/not-reached',
      'time/not-elapsed',
    ]);
  });

  it('permanent reasons sort last and mark the block impossible', () => {
    const def = defFromText(`{:process/id :o :process/version 1
      :process/roles {:empty {:members []}}
      :process/stages [{:stage/id :s :guards [[:signed-by :empty [:p]] [:elapsed-since :ticket/create "P9D"]]}]}`);
    const t = new Ticket('o');
    t.create();
    t.assert('y', 'p', 1n);
    const b = explain(def, t.events, new Instant(t.now), def.roles).blocks[0];
    expect(kinds(b?.missing ?? [])).toEqual(['time/not-elapsed', 'role/unsatisfied']);
    expect(b?.missing[1]?.permanent).toBe(true);
    expect(b?.impossible).toBe(true);
  });
});

describe('explain: permanent and impossible (§7.1)', () => {
  it('a role with no members can never sign: permanent, and its dependents are dead', () => {
    const def = loadDef('processes/support-request.edn'); // shipped with empty members
    const t = fresh();
    t.assert('seb', 'category', kw('technical'));
    t.assert('seb', 'severity', kw('high'));
    const r = explain(def, t.events, new Instant(t.now), def.roles);
    const b = blockFor(r, ':triaged');
    expect(b?.impossible).toBe(true);
    expect(r.dead).toEqual([':closed', ':reproducible', ':resolved', ':triaged']);
  });

  it('[:not [:stage-reached S]] with S sticky and reached is permanent', () => {
    const def = defFromText(`{:process/id :o :process/version 1 :process/stages [
      {:stage/id :done :stage/sticky? true :guards [[:fact [:x]]]}
      {:stage/id :late :after [:other] :guards []}
      {:stage/id :other :guards [[:not [:stage-reached :done]]]}]}`);
    const t = new Ticket('o');
    t.create();
    t.assert('a', 'x', 1n);
    const r = explain(def, t.events, new Instant(t.now), def.roles);
    const b = blockFor(r, ':other');
    expect(b?.missing[0]).toMatchObject({ kind: 'must-not-hold', permanent: true });
    expect(b?.impossible).toBe(true);
    expect(r.dead).toEqual([':late', ':other']);
  });

  it('waiting on a dead stage is permanent; an :or is permanent only if every option is', () => {
    const def = defFromText(`{:process/id :o :process/version 1 :process/roles {:none {:members []}} :process/stages [
      {:stage/id :root}
      {:stage/id :never :after [:root] :guards [[:signed-by :none [:p]]]}
      {:stage/id :s1 :after [:root] :guards [[:stage-reached :never]]}
      {:stage/id :s2 :after [:root] :guards [[:or [:stage-reached :never] [:fact [:q]]]]}
      {:stage/id :s3 :after [:root] :guards [[:or [:stage-reached :never] [:signed-by :none [:p]]]]}]}`);
    const t = new Ticket('o');
    t.create();
    t.assert('a', 'p', 1n);
    const r = explain(def, t.events, new Instant(t.now), def.roles);
    expect(blockFor(r, ':s1')?.impossible).toBe(true);
    expect(blockFor(r, ':s2')?.impossible).toBe(false);
    expect(blockFor(r, ':s3')?.impossible).toBe(true);
    expect(r.dead).toEqual([':never', ':s1', ':s3']);
  });
});

describe('explain for an actor', () => {
  it('keeps only what the actor can act on and counts the rest as hidden', () => {
    const t = fresh();
    t.assert('rando', 'category', kw('technical'));
    t.assert('rando', 'severity', kw('high'));
    const forSeb = ex(t, t.now, 'seb');
    expect(blockFor(forSeb, ':triaged')?.missing).toHaveLength(1);
    const forRando = ex(t, t.now, 'rando');
    expect(blockFor(forRando, ':triaged')).toBeUndefined();
    // :escalated waits on time (nobody can act) and on a fact negation (anyone).
    expect(forRando.hidden).toBeGreaterThanOrEqual(2);
  });

  it('time and stage waits are for nobody', () => {
    const t = fresh();
    const r = ex(t, T0 + HOUR, 'seb');
    expect(blockFor(r, ':escalated')?.missing.some((x) => x.kind === 'time/not-elapsed')).toBeFalsy();
  });

  it('role/same-person can be discharged by anyone but the same person', () => {
    const def = loadDef('examples/incident-response.edn');
    const t = new Ticket('incident-response');
    t.create();
    t.assert('alice', 'severity', kw('sev1'));
    t.assert('bob', 'impact', 'customers cannot log in');
    t.assert('bob', 'mitigation.note', 'rolled back the release');
    t.assert('alice', 'root-cause', 'a bad migration of the sessions');
    t.assert('alice', 'postmortem.summary', 'x'.repeat(40));
    t.assert('alice', 'review.verdict', kw('accepted'));
    const now = new Instant(t.now);
    const all = explain(def, t.events, now, def.roles);
    expect(blockFor(all, ':reviewed')?.missing).toEqual([
      { kind: 'role/same-person', paths: [path('postmortem.summary'), path('review.verdict')], by: 'alice' },
    ]);
    expect(blockFor(explain(def, t.events, now, def.roles, { forActor: 'alice' }), ':reviewed')).toBeUndefined();
    expect(blockFor(explain(def, t.events, now, def.roles, { forActor: 'bob' }), ':reviewed')).toBeDefined();
  });
});
