import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readEdn } from '../../../src/tik/edn/index.js';
import { parseEvent } from '../../../src/tik/kernel/index.js';
import { cleanup, eventFiles, json, supportStore, T0, tempDir, tik } from './harness.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});

async function store(): Promise<string> {
  const d = await supportStore();
  dirs.push(d);
  return d;
}

/** Open a ticket and return its id. */
async function open(dir: string, title = 'login broken'): Promise<string> {
  const r = await tik(dir, ['new', 'support-request', '--title', title]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

function readEvents(dir: string, ticket: string) {
  return eventFiles(dir, ticket).map((f) => parseEvent(readFileSync(join(dir, 'tickets', ticket, 'events', f), 'utf8'), f.slice(0, -4), f));
}

interface Status {
  ticket: string;
  title: string | null;
  process: { id: string; version: number; hash: string };
  current: string[];
  reached: string[];
  facts: Record<string, { status: string; value: string | null; by?: string; note?: string | null }>;
  missingParents: string[];
}

describe('tik init', () => {
  it('creates the file store layout', async () => {
    const d = tempDir();
    dirs.push(d);
    const r = await tik(d, ['init']);
    expect(r.code).toBe(0);
    expect(existsSync(join(d, 'tickets'))).toBe(true);
    expect(existsSync(join(d, 'processes/by-hash'))).toBe(true);
  });

  it('--hidden puts the store under .tik/', async () => {
    const d = tempDir();
    dirs.push(d);
    expect((await tik(d, ['init', '--hidden'])).code).toBe(0);
    expect(existsSync(join(d, '.tik/tickets'))).toBe(true);
    expect(existsSync(join(d, 'tickets'))).toBe(false);
  });

  it('--sqlite creates a SQLite store (tik.db, no tickets/)', async () => {
    const d = tempDir();
    dirs.push(d);
    const r = await tik(d, ['init', '--sqlite']);
    expect(r.code).toBe(0);
    expect(readdirSync(d).filter((n) => !n.startsWith('tik.db-')).sort()).toEqual(['processes', 'tik.db']);
    expect(existsSync(join(d, 'tickets'))).toBe(false);
  });
});

describe('tik new', () => {
  it('pins the named definition by hash and archives its canonical bytes', async () => {
    const d = await store();
    const id = await open(d);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const lint = json<{ hash: string }>(await tik(d, ['lint', 'processes/support-request.edn', '--json']));
    const [create] = readEvents(d, id);
    expect(create!.type.toString()).toBe(':ticket/create');
    expect(create!.parents).toEqual([]);
    expect(create!.actor).toBe('seb');
    const archived = readFileSync(join(d, 'processes/by-hash', `${lint.hash}.edn`), 'utf8');
    expect(readEdn(archived)).toBeDefined();
    const s = json<Status>(await tik(d, ['status', id, '--json']));
    expect(s.process).toEqual({ id: ':support-request', version: 1, hash: lint.hash });
    expect(s.title).toBe('login broken');
    expect(s.reached).toEqual([':received']);
  });

  it('--json reports the ticket, its create event and the pin', async () => {
    const d = await store();
    const r = json<{ ticket: string; event: string; process: { id: string } }>(await tik(d, ['new', 'support-request', '--json']));
    expect(eventFiles(d, r.ticket)).toEqual([`${r.event}.edn`]);
    expect(r.process.id).toBe(':support-request');
  });
});

describe('tik set', () => {
  it('writes one chained assert per assignment, parented on the current heads', async () => {
    const d = await store();
    const id = await open(d);
    const r = await tik(d, ['set', id.slice(0, 8), 'category=technical', 'severity=high']);
    expect(r.code).toBe(0);
    const events = readEvents(d, id);
    const create = events.find((e) => e.type.toString() === ':ticket/create')!;
    const asserts = events.filter((e) => e.type.toString() === ':fact/assert').sort((a, b) => a.at.ms - b.at.ms);
    expect(asserts).toHaveLength(2);
    expect(asserts[0]!.parents).toEqual([create.id]);
    expect(asserts[1]!.parents).toEqual([asserts[0]!.id]);
    expect(r.stdout.split('\n').filter(Boolean).map((l) => l.split(' ')[0])).toEqual(asserts.map((e) => e.id));
    const s = json<Status>(await tik(d, ['status', id, '--json']));
    expect(s.reached).toEqual([':received', ':triaged']);
    expect(s.current).toEqual([':triaged']);
    expect(s.facts.category).toMatchObject({ status: 'present', value: ':technical', by: 'seb' });
  });

  it('reads values as EDN, bare words as keywords, anything else as a string; declared :string paths keep raw text', async () => {
    const d = await store();
    const id = await open(d);
    expect(
      (await tik(d, ['set', id, 'a=word', 'b=42', 'c="quoted"', 'd=two words', 'e=true', 'f=[:x 1]', 'g.h=nil', 'resolution.ref=12345678']))
        .code,
    ).toBe(0);
    const s = json<Status>(await tik(d, ['status', id, '--json']));
    expect(s.facts.a!.value).toBe(':word');
    expect(s.facts.b!.value).toBe('42');
    expect(s.facts.c!.value).toBe('"quoted"');
    expect(s.facts.d!.value).toBe('"two words"');
    expect(s.facts.e!.value).toBe('true');
    expect(s.facts.f!.value).toBe('[:x 1]');
    expect(s.facts['g.h']!.value).toBe('nil');
    expect(s.facts['resolution.ref']!.value).toBe('"12345678"');
  });

  it('dates each event strictly after its parents even when the clock stands still (§2.5)', async () => {
    const d = await store();
    const id = await open(d);
    await tik(d, ['set', id, 'severity=high']);
    await tik(d, ['retract', id, 'severity']);
    const ats = readEvents(d, id)
      .map((e) => e.at.ms)
      .sort((a, b) => a - b);
    expect(new Set(ats).size).toBe(3);
    expect(ats[0]).toBe(Date.parse(T0));
    const s = json<Status>(await tik(d, ['status', id, '--json']));
    expect(s.facts.severity!.status).toBe('retracted');
  });

  it('--actor and TIK_ACTOR name the author, --actor first', async () => {
    const d = await store();
    const id = await open(d);
    await tik(d, ['--actor', 'rando', 'set', id, 'category=technical'], { TIK_ACTOR: 'billing' });
    await tik(d, ['set', id, 'severity=high'], { TIK_ACTOR: 'billing' });
    await tik(d, ['set', id, 'x=1'], { TIK_ACTOR: undefined });
    const s = json<Status>(await tik(d, ['status', id, '--json']));
    expect(s.facts.category!.by).toBe('rando');
    expect(s.facts.severity!.by).toBe('billing');
    expect(s.facts.x!.by).toBe('os-user');
    expect(s.reached).toEqual([':received']);
  });
});

describe('tik retract, dispute, attach, comment, attest', () => {
  it('retract withdraws a fact with its reason', async () => {
    const d = await store();
    const id = await open(d);
    await tik(d, ['set', id, 'customer.ack=true']);
    expect((await tik(d, ['retract', id, 'customer.ack', '--reason', 'misclick'])).code).toBe(0);
    const s = json<Status>(await tik(d, ['status', id, '--json']));
    expect(s.facts['customer.ack']).toMatchObject({ status: 'retracted', note: '"misclick"' });
  });

  it('dispute regresses a stage; a corrected assert supersedes it; withdraw clears your own', async () => {
    const d = await store();
    const id = await open(d);
    await tik(d, ['set', id, 'category=technical', 'severity=high']);
    await tik(d, ['--actor', 'billing', 'dispute', id, 'category', '--reason', 'not technical']);
    let s = json<Status>(await tik(d, ['status', id, '--json']));
    expect(s.reached).toEqual([':received']);
    expect(s.facts.category).toMatchObject({ status: 'disputed', by: 'billing', note: '"not technical"', value: ':technical' });
    await tik(d, ['--actor', 'billing', 'dispute', id, 'category', '--withdraw']);
    s = json<Status>(await tik(d, ['status', id, '--json']));
    expect(s.facts.category!.status).toBe('present');
    expect(s.reached).toContain(':triaged');
    const withdraw = readEvents(d, id).find((e) => e.body.getByText(':dispute/withdraw?') === true)!;
    expect(withdraw.body.getByText(':dispute/reason')).toBe('withdrawn');
  });

  it('a dispute with no reason records "disputed"', async () => {
    const d = await store();
    const id = await open(d);
    await tik(d, ['set', id, 'category=technical']);
    await tik(d, ['dispute', id, 'category']);
    const e = readEvents(d, id).find((x) => x.type.toString() === ':fact/dispute')!;
    expect(e.body.getByText(':dispute/reason')).toBe('disputed');
  });

  it('attach stores the blob by hash under the ticket and derives the artifact stage', async () => {
    const d = await store();
    const id = await open(d);
    await tik(d, ['set', id, 'category=technical', 'severity=high']);
    writeFileSync(join(d, 'crash.sh'), '#!/bin/sh\nexit 1\n');
    expect((await tik(d, ['attach', id, 'crash.sh'])).code).toBe(0);
    const attach = readEvents(d, id).find((e) => e.type.toString() === ':artifact/attach')!;
    expect(attach.body.getByText(':artifact/path')).toBe('repro/crash.sh');
    const hash = attach.body.getByText(':artifact/hash') as string;
    expect(readFileSync(join(d, 'tickets', id, 'blobs', hash), 'utf8')).toBe('#!/bin/sh\nexit 1\n');
    const s = json<Status>(await tik(d, ['status', id, '--json']));
    expect(s.reached).toContain(':reproducible');
    await tik(d, ['attach', id, 'crash.sh', '--as', 'logs/crash.txt']);
    const paths = readEvents(d, id).map((e) => e.body.getByText(':artifact/path')).filter(Boolean);
    expect(paths).toContain('logs/crash.txt');
  });

  it('comment attaches a text blob at comment/<its own instant>', async () => {
    const d = await store();
    const id = await open(d);
    expect((await tik(d, ['comment', id, 'hello', 'world'])).code).toBe(0);
    const c = readEvents(d, id).find((e) => e.type.toString() === ':artifact/attach')!;
    expect(c.body.getByText(':artifact/path')).toBe('comment/2026-07-08T10:00:00.001Z');
    expect(readFileSync(join(d, 'tickets', id, 'blobs', c.body.getByText(':artifact/hash') as string), 'utf8')).toBe('hello world');
  });

  it('attest writes {:claim <claim> …} with the --body entries', async () => {
    const d = await store();
    const id = await open(d);
    expect((await tik(d, ['attest', id, 'sbom', '--body', '{:run 42}'])).code).toBe(0);
    const a = readEvents(d, id).find((e) => e.type.toString() === ':attestation/add')!;
    expect(a.body.getByText(':claim')!.toString()).toBe(':sbom');
    expect(a.body.getByText(':run')).toBe(42n);
  });
});

describe('read verbs', () => {
  async function triaged(d: string): Promise<string> {
    const id = await open(d);
    await tik(d, ['set', id, 'category=technical', 'severity=high']);
    return id;
  }

  it('status --at derives at another instant (time guards move, events are clamped)', async () => {
    const d = await store();
    const id = await open(d);
    const later = json<Status>(await tik(d, ['status', id, '--at', '2026-07-10T10:00:01Z', '--json']));
    expect(later.reached).toEqual([':escalated', ':received']);
    const now = json<Status>(await tik(d, ['status', id, '--json']));
    expect(now.reached).toEqual([':received']);
  });

  it('status without --json says the stage, what is missing and who can supply it', async () => {
    const d = await store();
    const id = await open(d);
    const fresh = (await tik(d, ['status', id])).stdout;
    expect(fresh).toMatch(/category is missing; :triager \(seb\) must set it/);
    expect(fresh).toMatch(/severity is missing; anyone can set it/);
    await tik(d, ['--actor', 'rando', 'set', id, 'category=technical', 'severity=high']);
    const r = await tik(d, ['status', id.slice(0, 6)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/stage\s+:received/);
    expect(r.stdout).toMatch(/to reach :triaged/);
    expect(r.stdout).toMatch(/category must come from :triager \(seb\), not rando/);
  });

  it('explain --json lists the frontier with reasons as data; --actor filters to what that actor can do', async () => {
    const d = await store();
    const id = await open(d);
    await tik(d, ['--actor', 'rando', 'set', id, 'category=technical', 'severity=high']);
    const all = json<{ blocks: { stage: string; missing: { reason: string; role?: string; path?: string[] }[] }[] }>(
      await tik(d, ['explain', id, '--json']),
    );
    const triage = all.blocks.find((b) => b.stage === ':triaged')!;
    expect(triage.missing).toContainEqual(expect.objectContaining({ reason: ':role/unsatisfied', role: ':triager', path: [':category'] }));
    const forRando = json<{ blocks: { stage: string }[]; hidden: number }>(await tik(d, ['--actor', 'rando', 'explain', id, '--json']));
    expect(forRando.blocks.map((b) => b.stage)).not.toContain(':triaged');
    expect(forRando.hidden).toBeGreaterThan(0);
    expect((await tik(d, ['explain', id])).stdout).toMatch(/To reach :triaged:/);
  });

  it('explain --at moves time: the escalation wait disappears once 48 hours have passed', async () => {
    const d = await store();
    const id = await open(d);
    type Ex = { blocks: { stage: string; missing: { reason: string }[] }[]; reached: string[] };
    const now = json<Ex>(await tik(d, ['explain', id, '--json']));
    expect(now.blocks.find((b) => b.stage === ':escalated')!.missing.map((m) => m.reason)).toEqual([':time/not-elapsed']);
    const later = json<Ex>(await tik(d, ['explain', id, '--at', '2026-07-10T10:00:00Z', '--json']));
    expect(later.blocks.find((b) => b.stage === ':escalated')).toBeUndefined();
    expect(later.reached).toContain(':escalated');
  });

  it('log --json lists events in order with the stages each derived', async () => {
    const d = await store();
    const id = await triaged(d);
    const log = json<{ type: string; actor: string; derived: string[] }[]>(await tik(d, ['log', id, '--json']));
    expect(log.map((e) => e.type)).toEqual([':ticket/create', ':fact/assert', ':fact/assert']);
    expect(log.map((e) => e.derived)).toEqual([[':received'], [], [':triaged']]);
    expect((await tik(d, ['log', id])).stdout).toMatch(/severity = :high\s+→ :triaged/);
  });

  it('diff k reports what the last k events gained and changed', async () => {
    const d = await store();
    const id = await triaged(d);
    const one = json<{ gained: string[]; lost: string[]; facts: { path: string }[] }>(await tik(d, ['diff', id, '--json']));
    expect(one.gained).toEqual([':triaged']);
    expect(one.facts.map((f) => f.path)).toEqual(['severity']);
    const two = json<{ facts: { path: string }[] }>(await tik(d, ['diff', id, '2', '--json']));
    expect(two.facts.map((f) => f.path)).toEqual(['category', 'severity']);
    expect((await tik(d, ['diff', id, '0'])).code).toBe(2);
  });

  it('next ranks actions across tickets; --actor and --role filter', async () => {
    const d = await store();
    const a = await open(d, 'a');
    const b = await open(d, 'b');
    await tik(d, ['set', b, 'category=technical', 'severity=high']);
    const inbox = json<{ items: { action: string; who: string | string[]; role: string | null; unlocks: { ticket: string; stage: string }[] }[] }>(
      await tik(d, ['next', '--json']),
    );
    const setCategory = inbox.items.find((i) => i.action === '[:set [:category]]')!;
    expect(setCategory.who).toEqual(['seb']);
    expect(setCategory.role).toBe(':triager');
    expect(setCategory.unlocks).toEqual([{ ticket: a, stage: ':triaged', hint: 'kb/runbooks/support-request-triaged.md' }]);
    const forBilling = json<{ items: { action: string }[] }>(await tik(d, ['--actor', 'billing', 'next', '--json']));
    expect(forBilling.items.map((i) => i.action)).not.toContain('[:set [:category]]');
    const triager = json<{ items: { role: string | null }[] }>(await tik(d, ['next', '--role', 'triager', '--json']));
    expect(triager.items.length).toBeGreaterThan(0);
    expect(triager.items.every((i) => i.role === ':triager')).toBe(true);
  });

  it('next holds back a ticket whose [:link :depends-on] target is not settled', async () => {
    const d = await store();
    const target = await open(d, 'target');
    const dependent = await open(d, 'dependent');
    expect((await tik(d, ['set', dependent, `link.depends-on=${target}`])).code).toBe(0);
    type Inbox = { items: { unlocks: { ticket: string }[] }[]; heldBack: { ticket: string; dependsOn: string }[] };
    const held = json<Inbox>(await tik(d, ['next', '--json']));
    expect(held.heldBack).toEqual([{ ticket: dependent, dependsOn: target }]);
    expect(held.items.flatMap((i) => i.unlocks.map((u) => u.ticket))).not.toContain(dependent);
    writeFileSync(join(d, 'crash.sh'), 'x');
    await tik(d, ['set', target, 'category=technical', 'severity=high', 'resolution.ref=abcdef123456']);
    await tik(d, ['attach', target, 'crash.sh']);
    await tik(d, ['--actor', 'customer', 'set', target, 'customer.ack=true']);
    const free = json<Inbox>(await tik(d, ['next', '--json']));
    expect(free.heldBack).toEqual([]);
    expect(free.items.flatMap((i) => i.unlocks.map((u) => u.ticket))).toContain(dependent);
    const s = json<Status>(await tik(d, ['status', dependent, '--json']));
    expect(Object.keys(s.facts)).not.toContain('link.depends-on');
  });

  it('ls hides settled tickets unless --all', async () => {
    const d = await store();
    const open1 = await open(d, 'open one');
    const done = await open(d, 'done');
    writeFileSync(join(d, 'crash.sh'), 'x');
    await tik(d, ['set', done, 'category=technical', 'severity=high', 'resolution.ref=abcdef123456']);
    await tik(d, ['attach', done, 'crash.sh']);
    await tik(d, ['--actor', 'customer', 'set', done, 'customer.ack=true']);
    const rows = json<{ ticket: string; current: string[]; settled: boolean }[]>(await tik(d, ['ls', '--json']));
    expect(rows.map((r) => r.ticket)).toEqual([open1]);
    const all = json<{ ticket: string; current: string[]; settled: boolean }[]>(await tik(d, ['ls', '--all', '--json']));
    expect(all.find((r) => r.ticket === done)).toMatchObject({ settled: true, current: [':closed', ':reproducible'] });
    expect((await tik(d, ['ls'])).stdout).toMatch(/1 settled ticket hidden/);
  });
});

describe('lint, verify, sign, actor add', () => {
  it('lint prints findings and exits 0 on warnings only', async () => {
    const r = await tik(process.cwd(), ['lint', '../shared/tik-conformance/processes/support-request.edn', '--json']);
    const out = JSON.parse(r.stdout) as { errors: unknown[]; warnings: { code: string }[]; hash: string };
    expect(r.code).toBe(0);
    expect(out.errors).toEqual([]);
    expect(out.warnings.length).toBeGreaterThan(0);
    expect(out.hash).toMatch(/^sha256-[0-9a-f]{64}$/);
  });

  it('a definition that fails lint exits 1 and names the problem', async () => {
    const d = tempDir();
    dirs.push(d);
    writeFileSync(join(d, 'bad.edn'), '{:process/id :bad :process/version 1 :process/stages [{:stage/id :a :after [:nope] :guards []}]}');
    const r = await tik(d, ['lint', 'bad.edn']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/error/);
    expect(r.stdout).toMatch(/:nope/);
  });

  it('verify passes a clean store, signatures included, and fails a tampered one', async () => {
    const d = await store();
    const id = await open(d);
    await tik(d, ['set', id, 'category=technical']);
    expect((await tik(d, ['verify'])).code).toBe(0);
    const report = json<{ ok: boolean; tickets: { ticket: string; ok: boolean }[] }>(await tik(d, ['verify', id.slice(0, 8), '--json']));
    expect(report.ok).toBe(true);
    expect(report.tickets.map((t) => t.ticket)).toEqual([id]);
    // Tamper: rewrite one event's bytes in place.
    const file = join(d, 'tickets', id, 'events', eventFiles(d, id)[0]!);
    writeFileSync(file, readFileSync(file, 'utf8').replace('seb', 'bob'));
    const bad = await tik(d, ['verify']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/FAIL/);
  });
});
