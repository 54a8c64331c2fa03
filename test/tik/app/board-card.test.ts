import { cpSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { boardFromRows, boardModel } from '../../../src/tik/app/board-card.js';
import { openTicket, requireDef } from '../../../src/tik/app/ticket-loader.js';
import { loadTicketSet } from '../../../src/tik/app/ticket-set.js';
import { isCommentEvent, ticketView } from '../../../src/tik/app/ticket-view.js';
import { Instant } from '../../../src/tik/edn/value.js';
import { FileStore } from '../../../src/tik/store/file/file-store.js';
import { localTransport, syncWith } from '../../../src/tik/sync/index.js';
import { T0, cleanup, supportStore, tempDir, tik } from '../cli/harness.js';

// The board's card model and the ticket page's data (issue 19): plain data derived from the
// events, which the browser renders as text.

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});

async function ok(d: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await tik(d, args, env);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

const HOUR = 3_600_000;
const at = (ms: number): Instant => new Instant(Date.parse(T0) + ms);

/**
 * Four tickets: a triaged one, an untouched one, a disputed one, and one whose severity two
 * replicas set concurrently to different values (a conflict, once one pulls the other).
 */
async function scenario(): Promise<{ dir: string; triaged: string; fresh: string; disputed: string; conflicted: string }> {
  const dir = await supportStore();
  dirs.push(dir);
  const triaged = await ok(dir, ['new', 'support-request', '--title', 'Login fails']);
  const fresh = await ok(dir, ['new', 'support-request', '--title', '<img src=x onerror=alert(1)>']);
  const disputed = await ok(dir, ['new', 'support-request', '--title', 'Export is slow']);
  const conflicted = await ok(dir, ['new', 'support-request', '--title', 'Two opinions']);
  await ok(dir, ['set', triaged, 'category=technical', 'severity=high']);
  await ok(dir, ['set', disputed, 'category=billing', 'severity=low']);
  await ok(dir, ['--actor', 'customer', 'dispute', disputed, 'severity', '--reason', 'it is urgent']);
  const other = tempDir();
  dirs.push(other);
  cpSync(dir, other, { recursive: true });
  await ok(dir, ['set', conflicted, 'severity=high']);
  await ok(other, ['--actor', 'ana', 'set', conflicted, 'severity=low']);
  await syncWith(new FileStore(dir), localTransport(new FileStore(other)));
  return { dir, triaged, fresh, disputed, conflicted };
}

describe('boardModel', () => {
  it('gives each card its stages, age from the first event, blockers naming who can supply them, and conflict and dispute flags', async () => {
    const s = await scenario();
    const now = at(2 * HOUR);
    const set = await loadTicketSet(new FileStore(s.dir), now);
    const board = boardModel(set.tickets, set.skipped, now, ['support-request']);
    expect(board.processes).toEqual([{ process: ':support-request', version: 1, stages: [':received', ':triaged', ':escalated', ':reproducible', ':resolved', ':closed'] }]);
    expect(board.definitions).toEqual(['support-request']);
    expect(board.at).toBe('2026-07-08T12:00:00Z');
    const card = (t: string) => board.cards.find((c) => c.ticket === t)!;
    expect(card(s.triaged)).toMatchObject({ title: 'Login fails', current: [':triaged'], settled: false, conflicted: false, disputed: false });
    expect(card(s.fresh)).toMatchObject({ title: '<img src=x onerror=alert(1)>', current: [':received'] });
    expect(card(s.fresh).ageMs).toBe(now.ms - Date.parse(card(s.fresh).created!));
    expect(card(s.fresh).ageMs).toBeGreaterThan(2 * HOUR - 1000);
    expect(card(s.fresh).blockers).toContainEqual({ stage: ':triaged', impossible: false, missing: ['category is missing; :triager (seb) must set it', 'severity is missing; anyone can set it'] });
    expect(card(s.disputed)).toMatchObject({ disputed: true, conflicted: false });
    expect(card(s.conflicted)).toMatchObject({ conflicted: true, current: [':received'] });
    // newest first
    const updated = board.cards.map((c) => c.updated!);
    expect(updated).toEqual([...updated].sort().reverse());
  });

  it('from gathered ls rows (a sharded replica): columns from the current stages, no blockers', () => {
    const rows = [
      { ticket: 'b', title: 'B', process: ':p', current: [':two'], settled: false, updated: '2026-07-08T10:00:02Z', missingParents: [] },
      { ticket: 'a', title: null, process: ':p', current: [':one', ':two'], settled: false, updated: '2026-07-08T10:00:03Z', missingParents: ['x'] },
    ];
    const board = boardFromRows(rows, [], at(0), []);
    expect(board.processes).toEqual([{ process: ':p', version: null, stages: [':one', ':two'] }]);
    expect(board.cards.map((c) => [c.ticket, c.title, c.blockers, c.ageMs, c.missingParents])).toEqual([
      ['a', null, null, null, 1],
      ['b', 'B', null, null, 0],
    ]);
  });
});

/** Two replicas write to a ticket concurrently (`mine` here, `theirs` as ana on a copy), then this one pulls. */
async function concurrently(dir: string, ticket: string, mine: string[], theirs: string[]): Promise<void> {
  const other = tempDir();
  dirs.push(other);
  cpSync(dir, other, { recursive: true });
  await ok(dir, ['set', ticket, ...mine]);
  await ok(other, ['--actor', 'ana', 'set', ticket, ...theirs]);
  await syncWith(new FileStore(dir), localTransport(new FileStore(other)));
}

describe('a fact both conflicted and disputed, and a conflict on the title', () => {
  it('badges the card and flags the conflicting writes though the dispute is what the fact status says', async () => {
    const s = await scenario();
    await ok(s.dir, ['--actor', 'customer', 'dispute', s.conflicted, 'severity', '--reason', 'neither']);
    const store = new FileStore(s.dir);
    const now = at(HOUR);
    const set = await loadTicketSet(store, now);
    expect(boardModel(set.tickets, set.skipped, now, []).cards.find((c) => c.ticket === s.conflicted)).toMatchObject({ conflicted: true, disputed: true });
    const open = await openTicket(undefined, store, s.conflicted);
    const v = ticketView(open, requireDef(open), now, new Map());
    const severity = (v.facts as Record<string, Record<string, unknown>>).severity!;
    expect(severity.status).toBe('disputed');
    expect(severity.claims).toHaveLength(2);
    const log = v.log as { summary: string; flag: string | null }[];
    expect(log.filter((e) => e.flag !== null).map((e) => [e.summary, e.flag])).toEqual([
      ['set severity = :high', 'conflict'],
      ['set severity = :low', 'conflict'],
      ['disputed severity (neither)', 'dispute'],
    ]);
  });

  it('lists a conflicted title among the facts of the ticket page, as the card badges it', async () => {
    const dir = await supportStore();
    dirs.push(dir);
    const t = await ok(dir, ['new', 'support-request', '--title', 'first']);
    await concurrently(dir, t, ['title=mine'], ['title=theirs']);
    const store = new FileStore(dir);
    const now = at(HOUR);
    const set = await loadTicketSet(store, now);
    expect(boardModel(set.tickets, set.skipped, now, []).cards[0]).toMatchObject({ conflicted: true });
    const open = await openTicket(undefined, store, t);
    const title = (ticketView(open, requireDef(open), now, new Map()).facts as Record<string, Record<string, unknown>>).title;
    expect(title).toMatchObject({ status: 'conflicted', resolve: expect.stringMatching(/^concurrent writes disagree/) });
    expect(title!.claims).toHaveLength(2);
  });
});

describe('ticketView', () => {
  it('says how to resolve a conflict and a dispute, names stage transitions in the log and carries comment texts', async () => {
    const s = await scenario();
    await ok(s.dir, ['comment', s.disputed, 'customer called <b>twice</b>']);
    const store = new FileStore(s.dir);
    const now = at(HOUR);
    const view = async (t: string) => {
      const open = await openTicket(undefined, store, t);
      return ticketView(open, requireDef(open), now, new Map(open.events.filter(isCommentEvent).map((e) => [e.id, { text: `text of ${e.id.slice(7, 15)}`, note: null }])));
    };
    const c = await view(s.conflicted);
    const severity = (c.facts as Record<string, Record<string, unknown>>).severity!;
    expect(severity.status).toBe('conflicted');
    expect(severity.resolve).toMatch(/^concurrent writes disagree: set the fact again/);
    expect(severity.claims).toHaveLength(2);
    // The log highlights both competing writes.
    const claimIds = (severity.claims as { event: string }[]).map((x) => x.event).sort();
    expect((c.log as { id: string; flag: string | null }[]).filter((e) => e.flag === 'conflict').map((e) => e.id).sort()).toEqual(claimIds);

    const d = await view(s.disputed);
    expect((d.facts as Record<string, Record<string, unknown>>).severity).toMatchObject({ status: 'disputed', resolve: expect.stringMatching(/^customer can withdraw the dispute/) });
    const log = d.log as { summary: string; derived: string[]; comment: string | null; actor: string }[];
    expect(log.map((e) => [e.actor, e.summary, e.derived])).toEqual([
      ['seb', 'created: Export is slow', [':received']],
      ['seb', 'set category = :billing', []],
      ['seb', 'set severity = :low', [':triaged']],
      ['customer', 'disputed severity (it is urgent)', []],
      ['seb', 'commented', []],
    ]);
    // Only the comment attachment carries its text; the open dispute is flagged.
    expect(log.map((e) => e.comment !== null)).toEqual([false, false, false, false, true]);
    expect((d.log as { flag: string | null }[]).map((e) => e.flag)).toEqual([null, null, null, 'dispute', null]);
    expect(d.svg).toMatch(/data-stage=":received"><title>:received<\/title>/);
    expect(d.current).toEqual([':received']);
  });
});
