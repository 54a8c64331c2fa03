import { describe, expect, it } from 'vitest';
import { Instant, kw } from '../../../src/tik/edn/value.js';
import { readEdn } from '../../../src/tik/edn/index.js';
import { causal, diff, inbox, logLens, resolveRoles, status, type ProcessDef } from '../../../src/tik/kernel/index.js';
import { HOUR, T0, Ticket, defFromText, loadDef, registerRoles } from './builders.js';

const SUPPORT = loadDef('processes/support-request.edn');
const ROLES = registerRoles(SUPPORT);

function closedTicket(): Ticket {
  const t = new Ticket();
  t.create('customer', {}, 'login broken');
  t.assert('seb', 'category', kw('technical'));
  t.assert('seb', 'severity', kw('high'));
  t.attach('seb', 'repro/crash.sh');
  t.assert('seb', 'resolution.ref', 'abc123def456');
  t.assert('customer', 'customer.ack', true);
  t.retract('customer', 'customer.ack', {}, 'misclick');
  return t;
}

describe('status', () => {
  it('gives the contract fields of `tik status --json`', () => {
    const t = closedTicket();
    const s = status(SUPPORT, t.events, new Instant(t.now), ROLES);
    expect(s.ticket).toBe('018f2f6e-7c1a-7000-8000-000000000001');
    expect(s.title).toBe('login broken');
    expect(s.process).toEqual({ id: ':support-request', version: 1, hash: SUPPORT.hash });
    expect(s.reached).toEqual([':closed', ':received', ':reproducible', ':resolved', ':triaged']);
    expect(s.current).toEqual([':closed', ':reproducible']);
    expect(s.facts).toEqual({
      category: { status: 'present', value: ':technical', by: 'seb' },
      severity: { status: 'present', value: ':high', by: 'seb' },
      'resolution.ref': { status: 'present', value: '"abc123def456"', by: 'seb' },
      'customer.ack': { status: 'retracted', by: 'customer', note: '"misclick"' },
    });
    expect(s.missingParents).toEqual([]);
  });

  it('a [:title] fact overrides the title; [:title] and [:link …] are not listed as facts', () => {
    const t = new Ticket();
    t.create('c', {}, 'old');
    t.assert('seb', 'title', 'new title');
    t.assert('seb', 'link.depends-on', 'x');
    const s = status(SUPPORT, t.events, new Instant(t.now), ROLES);
    expect(s.title).toBe('new title');
    expect(s.facts).toEqual({});
    expect(s.links).toEqual({ 'depends-on': '"x"' });
  });

  it('reports disputed and conflicted facts, missing parents and explain blocks', () => {
    const t = new Ticket();
    const c = t.create();
    t.assert('seb', 'category', kw('technical'), { parents: [c.id] });
    t.assert('billing', 'category', kw('billing'), { parents: [c.id] });
    const sev = t.assert('seb', 'severity', kw('high'), { parents: ['sha256-elsewhere'] });
    t.dispute('rando', 'severity', 'nope', { parents: [sev.id] });
    const s = status(SUPPORT, t.events, new Instant(t.now), ROLES);
    expect(s.facts.category?.status).toBe('conflicted');
    expect(s.facts.category?.claims?.map((x) => x.value).sort()).toEqual([':billing', ':technical']);
    expect(s.facts.severity).toEqual({ status: 'disputed', value: ':high', by: 'rando', note: '"nope"' });
    expect(s.missingParents).toEqual(['sha256-elsewhere']);
    expect(s.blocks.map((b) => b.stage)).toEqual([':triaged', ':escalated']);
  });

  it('status --at clamps later events rather than excluding them', () => {
    const t = closedTicket();
    const s = status(SUPPORT, t.events, new Instant(T0), ROLES);
    expect(s.facts.severity?.status).toBe('present');
  });
});

describe('log', () => {
  it('lists events in fold order with the stages each newly derived', () => {
    const t = closedTicket();
    const log = logLens(SUPPORT, t.events, new Instant(t.now), ROLES);
    expect(log.map((l) => l.type)).toEqual([
      ':ticket/create',
      ':fact/assert',
      ':fact/assert',
      ':artifact/attach',
      ':fact/assert',
      ':fact/assert',
      ':fact/retract',
    ]);
    expect(log.map((l) => l.derived)).toEqual([[':received'], [], [':triaged'], [':reproducible'], [':resolved'], [':closed'], []]);
    expect(log[0]?.actor).toBe('customer');
  });
});

describe('diff', () => {
  it('compares the first n−k events with all of them', () => {
    const t = closedTicket();
    const d = diff(SUPPORT, t.events, new Instant(t.now), ROLES, 3);
    expect(d.window).toBe(3);
    expect(d.gained).toEqual([':closed', ':resolved']);
    expect(d.lost).toEqual([]);
    expect(d.facts).toEqual([{ path: '[:resolution :ref]', before: null, after: '"abc123def456"' }]);
  });

  it('always keeps at least the first event', () => {
    const t = closedTicket();
    const d = diff(SUPPORT, t.events, new Instant(t.now), ROLES, 100);
    expect(d.gained).toEqual([':closed', ':reproducible', ':resolved', ':triaged']);
  });

  it('reports lost stages', () => {
    const t = closedTicket();
    t.retract('seb', 'resolution.ref');
    const d = diff(SUPPORT, t.events, new Instant(t.now), ROLES, 1);
    expect(d.lost).toEqual([':resolved']);
  });
});

describe('next (the inbox)', () => {
  const rolesFor = (def: ProcessDef) => registerRoles(def);

  function fresh(id: string): Ticket {
    const t = new Ticket('support-request', id);
    t.create();
    return t;
  }

  it('groups actions across tickets, ranked by what they unlock', () => {
    const a = fresh('018f2f6e-7c1a-7000-8000-00000000000a');
    const b = fresh('018f2f6e-7c1a-7000-8000-00000000000b');
    b.assert('seb', 'category', kw('technical'));
    const r = inbox(
      [
        { ticket: a.ticket, def: SUPPORT, events: a.events },
        { ticket: b.ticket, def: SUPPORT, events: b.events },
      ],
      new Instant(T0 + HOUR),
      rolesFor,
    );
    expect(r.items[0]?.actionText).toBe('[:set [:severity]]');
    expect(r.items[0]?.unlocks.map((u) => u.ticket).sort()).toEqual([a.ticket.text, b.ticket.text]);
    const cat = r.items.find((i) => i.actionText === '[:set [:category]]');
    // [:signed-by :triager [:category]] on the same stage gates who may set it.
    expect(cat?.who).toEqual(['seb']);
    expect(cat?.role).toBe(':triager');
    expect(cat?.unlocks).toEqual([{ ticket: a.ticket.text, stage: ':triaged', hint: 'kb/runbooks/support-request-triaged.md' }]);
    // Time waits are not actions.
    expect(r.waiting.some((w) => w.stage === ':escalated' && w.reason.kind === 'time/not-elapsed')).toBe(true);
  });

  it('--actor keeps actions the actor may take; --role filters on the role', () => {
    const a = fresh('018f2f6e-7c1a-7000-8000-00000000000a');
    const tickets = [{ ticket: a.ticket, def: SUPPORT, events: a.events }];
    const forRando = inbox(tickets, new Instant(T0), rolesFor, { actor: 'rando' });
    expect(forRando.items.map((i) => i.actionText)).toEqual(['[:set [:severity]]']);
    const triager = inbox(tickets, new Instant(T0), rolesFor, { role: 'triager' });
    expect(triager.items.map((i) => i.actionText)).toEqual(['[:set [:category]]']);
  });

  it('hides settled tickets unless --all', () => {
    const t = closedTicket();
    const tickets = [{ ticket: t.ticket, def: SUPPORT, events: t.events }];
    expect(inbox(tickets, new Instant(t.now), rolesFor)).toMatchObject({ items: [], settled: 1 });
    expect(inbox(tickets, new Instant(t.now), rolesFor, { all: true }).settled).toBe(0);
  });

  it('ranks ties by staleness', () => {
    const old = fresh('018f2f6e-7c1a-7000-8000-00000000000a');
    const young = new Ticket('track', '018f2f6e-7c1a-7000-8000-00000000000b');
    young.create('x', { at: T0 + 5 * HOUR });
    const track = loadDef('processes/track.edn');
    const r = inbox(
      [
        { ticket: young.ticket, def: track, events: young.events },
        { ticket: old.ticket, def: SUPPORT, events: old.events },
      ],
      new Instant(T0 + 10 * HOUR),
      (def) => resolveRoles(def),
    );
    const outcome = r.items.find((i) => i.actionText === '[:set [:outcome]]');
    const severity = r.items.find((i) => i.actionText === '[:set [:severity]]');
    expect(outcome?.staleMs).toBe(5 * HOUR);
    expect(severity?.staleMs).toBe(10 * HOUR);
    expect(r.items.indexOf(severity as never)).toBeLessThan(r.items.indexOf(outcome as never));
  });

  it('actions for artifacts and attestations, and who must not act', () => {
    const def = loadDef('processes/release.edn');
    const t = new Ticket('release');
    t.create();
    t.assert('ci', 'version', '1.2.3-rc');
    t.assert('ci', 'commit', 'abcdef1');
    t.attach('ci', 'checksums/sha256.txt');
    t.assert('seb', 'approval', kw('ship'));
    const r = inbox([{ ticket: t.ticket, def, events: t.events }], new Instant(t.now), (d) => d.roles);
    const texts = r.items.map((i) => i.actionText);
    expect(texts).toContain('[:attest :sbom]');
    expect(texts).toContain('[:attest :vulnerability-scan]');
    expect(texts).toContain('[:set [:scan :result]]');
  });

  it('a :different-person wait names who must not act', () => {
    const def = loadDef('examples/incident-response.edn');
    const t = new Ticket('incident-response');
    t.create();
    t.assert('alice', 'severity', kw('sev1'));
    t.assert('bob', 'impact', 'customers cannot log in');
    t.assert('bob', 'mitigation.note', 'rolled back the release');
    t.assert('alice', 'root-cause', 'a bad migration of the sessions');
    t.assert('alice', 'postmortem.summary', 'x'.repeat(40));
    t.assert('alice', 'review.verdict', kw('accepted'));
    const tickets = [{ ticket: t.ticket, def, events: t.events }];
    const r = inbox(tickets, new Instant(t.now), (d) => d.roles);
    const item = r.items.find((i) => i.actionText === '[:set [:postmortem :summary]]');
    expect(item).toMatchObject({ who: 'anyone', notActor: 'alice' });
    expect(inbox(tickets, new Instant(t.now), (d) => d.roles, { actor: 'alice' }).items.map((i) => i.actionText)).not.toContain(
      '[:set [:postmortem :summary]]',
    );
  });

  it('a [:signed-by] anywhere in the stage gates who, even under :or', () => {
    const def = defFromText(`{:process/id :o :process/version 1 :process/roles {:boss {:members ["b"]}}
      :process/stages [{:stage/id :s :guards [[:or [:signed-by :boss [:ok]] [:fact [:waiver]]] [:fact [:ok]]]}]}`);
    const t = new Ticket('o');
    t.create();
    const r = inbox([{ ticket: t.ticket, def, events: t.events }], new Instant(t.now), (d) => d.roles);
    expect(r.items.find((i) => i.actionText === '[:set [:ok]]')).toMatchObject({ who: ['b'], role: ':boss' });
    expect(r.items.find((i) => i.actionText === '[:set [:waiver]]')).toMatchObject({ who: 'anyone' });
  });
});

describe('causal', () => {
  it('cites the events behind each guard of each reached stage, and notes the rest', () => {
    const t = new Ticket();
    t.create();
    const cat = t.assert('seb', 'category', kw('technical'));
    const sev = t.assert('seb', 'severity', kw('high'));
    const att = t.attach('seb', 'repro/crash.sh');
    const ref = t.assert('seb', 'resolution.ref', 'abc123def456');
    const ack = t.assert('customer', 'customer.ack', true);
    t.retract('customer', 'customer.ack');
    const c = causal(SUPPORT, t.events, new Instant(t.now), ROLES);
    expect(c.map((e) => e.stage)).toEqual([':received', ':triaged', ':reproducible', ':resolved', ':closed']);
    const by = (stage: string) => c.find((e) => e.stage === stage)?.support;
    expect(by(':received')).toEqual([]);
    expect(by(':triaged')).toEqual([
      { via: readEdn('[:fact [:category]]'), events: [cat.id] },
      { via: readEdn('[:fact [:severity]]'), events: [sev.id] },
      { via: readEdn('[:signed-by :triager [:category]]'), events: [cat.id] },
    ]);
    expect(by(':reproducible')?.[1]).toEqual({ via: readEdn('[:artifact "repro/"]'), events: [att.id] });
    expect(by(':resolved')?.[0]).toEqual({ via: readEdn('[:fact [:resolution :ref]]'), events: [ref.id] });
    // The ack was retracted: the sticky stage is carried, with a note instead of evidence.
    expect(by(':closed')).toEqual([{ via: readEdn('[:fact [:customer :ack]]'), note: 'held when the sticky stage was reached' }]);
    expect(ack.id).toMatch(/^sha256-/);
  });
});
