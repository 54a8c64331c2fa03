// The ls index is a cache, never authority (ADR 0013, issue 18): whatever happens to it or behind
// its back, `tik ls`, `tik ls --where` and `tik search` answer exactly as a run that derives every
// ticket from the log (TIK_INDEX=off).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { indexedLsRows } from '../../../src/tik/app/ls-index.js';
import { Instant } from '../../../src/tik/edn/value.js';
import { FileStore } from '../../../src/tik/store/file/file-store.js';
import { forgedDerived, forgedWithBody } from '../store/forged-derived.js';
import { readDerived } from '../../../src/tik/store/derived-file.js';
import { localTransport, syncWith } from '../../../src/tik/sync/index.js';
import { T0, cleanup, supportStore, tempDir, tik, type RunResult } from '../cli/harness.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});

const INDEX = '.tik-index/ls.json';
const SELECT = '.tik-index/select.json';
const H49 = '2026-07-10T11:00:00Z'; // T0 + 49 h: support-request's :escalated needs 48 h without a category

async function store(): Promise<string> {
  const d = await supportStore();
  dirs.push(d);
  return d;
}

async function ok(d: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await tik(d, args, env);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

/** Three tickets: one triaged, one untouched (escalates after 48 h), one disputed. */
async function scenario(d: string): Promise<string[]> {
  const a = await ok(d, ['new', 'support-request', '--title', 'Login fails']);
  const b = await ok(d, ['new', 'support-request', '--title', 'Nothing yet']);
  const c = await ok(d, ['new', 'support-request', '--title', 'Export is slow']);
  await ok(d, ['set', a, 'category=technical', 'severity=high']);
  await ok(d, ['set', c, 'category=billing', 'severity=low']);
  await ok(d, ['--actor', 'customer', 'dispute', c, 'severity']);
  return [a, b, c];
}

const ls = (d: string, env: Record<string, string> = {}, args: string[] = ['ls', '--all', '--json']): Promise<RunResult> => tik(d, args, env);
const noIndex = (d: string, env: Record<string, string> = {}, args?: string[]): Promise<RunResult> => ls(d, { ...env, TIK_INDEX: 'off' }, args);

/** `ls` through the index equals `ls` without it: stdout, stderr and exit code. */
async function expectSameAnswer(d: string, env: Record<string, string> = {}, args?: string[]): Promise<RunResult> {
  const want = await noIndex(d, env, args);
  const got = await ls(d, env, args);
  expect(got).toEqual(want);
  return got;
}

/** Selectors over every term the index answers, and `search`. */
export const SELECTIONS: readonly string[][] = [
  ['ls', '--all', '--where', 'stage=:triaged', '--json'],
  ['ls', '--where', 'stage=escalated'],
  ['ls', '--all', '--where', 'fact:severity=:high and not disputed', '--json'],
  ['ls', '--all', '--where', 'fact:category', '--json'],
  ['ls', '--all', '--where', 'actor=customer', '--json'],
  ['ls', '--all', '--where', 'disputed', '--json'],
  ['ls', '--all', '--where', 'not conflicted', '--json'],
  ['ls', '--all', '--where', 'unsigned', '--json'],
  ['ls', '--all', '--where', 'not unsigned', '--json'],
  ['ls', '--all', '--where', '~login', '--json'],
  ['search', 'export', 'billing', '--json'],
  ['search', 'LOGIN'],
];

/** Every selection through the index equals the same selection without it; the stdout of each. */
async function expectSameSelections(d: string, env: Record<string, string> = {}): Promise<string[]> {
  const out: string[] = [];
  for (const args of SELECTIONS) out.push((await expectSameAnswer(d, env, args)).stdout);
  return out;
}

const hits = async (d: string, at = T0, select?: 'stages' | 'fields'): Promise<number> =>
  (await indexedLsRows(new FileStore(d), new Instant(Date.parse(at)), select === undefined ? {} : { select }))!.hits;

describe('the ls index', () => {
  it('is written by the first ls, serves every unchanged ticket after it, and answers as the log does', async () => {
    const d = await store();
    const ids = await scenario(d);
    expect(existsSync(join(d, INDEX))).toBe(false);
    const first = await expectSameAnswer(d);
    expect(JSON.parse(first.stdout)).toHaveLength(3);
    expect(existsSync(join(d, INDEX))).toBe(true);
    expect(readFileSync(join(d, '.tik-index/.gitignore'), 'utf8')).toBe('*\n');
    expect(await hits(d)).toBe(ids.length);
    await expectSameAnswer(d);
    await expectSameAnswer(d, {}, ['ls', '--json']);
    await expectSameAnswer(d, {}, ['ls']);
  });

  it('changes no answer when deleted, truncated or corrupted', async () => {
    const d = await store();
    await scenario(d);
    const want = (await noIndex(d)).stdout;
    await ls(d);
    rmSync(join(d, '.tik-index'), { recursive: true });
    expect((await expectSameAnswer(d)).stdout).toBe(want);

    truncateSync(join(d, INDEX), 200);
    expect((await expectSameAnswer(d)).stdout).toBe(want);

    // one byte of a title changed: still JSON, but the checksum no longer holds
    const text = readFileSync(join(d, INDEX), 'utf8');
    expect(text).toContain('Login fails');
    writeFileSync(join(d, INDEX), text.replace('Login fails', 'Login failz'));
    expect((await expectSameAnswer(d)).stdout).toBe(want);
    expect(await hits(d)).toBe(3);

    writeFileSync(join(d, INDEX), 'not an index');
    expect((await expectSameAnswer(d)).stdout).toBe(want);
    writeFileSync(join(d, INDEX), '');
    expect((await expectSameAnswer(d)).stdout).toBe(want);

    // the same for selections: deleted, truncated, corrupted (either file)
    const selected = await expectSameSelections(d);
    expect(existsSync(join(d, SELECT))).toBe(true);
    rmSync(join(d, '.tik-index'), { recursive: true });
    expect(await expectSameSelections(d)).toEqual(selected);
    rmSync(join(d, SELECT));
    expect(await expectSameSelections(d)).toEqual(selected);
    truncateSync(join(d, SELECT), 300);
    expect(await expectSameSelections(d)).toEqual(selected);
    truncateSync(join(d, INDEX), 300);
    expect(await expectSameSelections(d)).toEqual(selected);
    // a changed fact in the kept select fields, still JSON: the checksum no longer holds
    const kept = readFileSync(join(d, SELECT), 'utf8');
    expect(kept).toContain(':technical');
    writeFileSync(join(d, SELECT), kept.replaceAll(':technical', ':billing'));
    expect(await expectSameSelections(d)).toEqual(selected);
    expect(await hits(d, T0, 'fields')).toBe(3);
  });

  it('changes no answer when forged: a checksum recomputed by someone without this user\'s key (a copied or shipped index) is not trusted', async () => {
    const d = await store();
    await scenario(d);
    const want = (await noIndex(d)).stdout;
    await ls(d);
    for (const forged of forgedDerived(readFileSync(join(d, INDEX), 'utf8'), 'Login fails', 'Login forged')) {
      writeFileSync(join(d, INDEX), forged);
      const got = (await expectSameAnswer(d)).stdout;
      expect(got).toBe(want);
      expect(got).not.toContain('Login forged');
    }
    // forged select fields: every ticket seb's, disputed, and about logins
    const selected = await expectSameSelections(d);
    const selectText = readFileSync(join(d, SELECT), 'utf8');
    const selectNl = selectText.indexOf('\n');
    const selectBody = selectText.slice(selectNl + 1).replaceAll('\\"customer\\"', '\\"seb\\"').replaceAll(',false,', ',true,').replaceAll('export is slow', 'login');
    expect(selectBody).not.toBe(selectText.slice(selectNl + 1));
    for (const forged of forgedWithBody(selectText.slice(0, selectNl).split(' ')[0]!, selectBody)) {
      writeFileSync(join(d, SELECT), forged);
      expect(await expectSameSelections(d)).toEqual(selected);
    }
  });

  it('sees an event copied in behind its back (a file from a replica)', async () => {
    const d = await store();
    const [a] = await scenario(d);
    const replica = tempDir();
    dirs.push(replica);
    cpSync(d, replica, { recursive: true });
    const before = (await ls(d)).stdout;
    await ok(replica, ['set', a!, 'resolution.ref=abcdef123456']);
    await ok(replica, ['--actor', 'customer', 'set', a!, 'customer.ack=true']);
    const events = join('tickets', a!, 'events');
    const selectedBefore = await expectSameSelections(d);
    for (const f of readdirSync(join(replica, events))) if (!existsSync(join(d, events, f))) cpSync(join(replica, events, f), join(d, events, f));
    const after = await expectSameAnswer(d);
    expect(after.stdout).not.toBe(before);
    expect(await hits(d)).toBe(3);
    // the copied-in events change what the selectors see (a customer now acted on a)
    const selectedAfter = await expectSameSelections(d);
    expect(selectedAfter).not.toEqual(selectedBefore);
    expect((await ls(d, {}, ['ls', '--all', '--where', 'actor=customer fact:customer.ack=true', '--json'])).stdout).toContain(a!);
  });

  it('derives again when a time guard expires, and when TIK_NOW goes back', async () => {
    const d = await store();
    const [, b] = await scenario(d);
    const atT0 = await expectSameAnswer(d);
    const later = await expectSameAnswer(d, { TIK_NOW: H49 });
    const row = (r: RunResult) => (JSON.parse(r.stdout) as { ticket: string; current: string[] }[]).find((x) => x.ticket === b)!;
    expect(row(atT0).current).toEqual([':received']);
    expect(row(later).current).toEqual([':escalated']);
    // every entry derived at T0 ended at T0 + 48 h (the PT48H guard); those derived at H49 start there
    expect(await hits(d, H49)).toBe(3);
    expect(await hits(d, T0)).toBe(0);
    expect(await hits(d, T0)).toBe(3);
    await expectSameAnswer(d);
    await expectSameAnswer(d, {}, ['ls', '--all', '--json']);
    // stage= past the time guard: derived again, from the index or not
    const escalated = ['ls', '--where', 'stage=:escalated', '--json'];
    expect(JSON.parse((await expectSameAnswer(d, {}, escalated)).stdout)).toEqual([]);
    expect((JSON.parse((await expectSameAnswer(d, { TIK_NOW: H49 }, escalated)).stdout) as { ticket: string }[]).map((r) => r.ticket)).toEqual([b]);
    await expectSameSelections(d, { TIK_NOW: H49 });
    await expectSameSelections(d);
  });

  it('follows the definition and the roles register', async () => {
    const d = await store();
    await scenario(d);
    await ls(d);
    // seb is no longer a triager: nothing is triaged any more
    writeFileSync(join(d, 'roles.edn'), '{:triager {:members ["ana"]} :billing {:members ["billing"]}}');
    const r = await expectSameAnswer(d);
    expect(r.stdout).not.toContain(':triaged');
    // the archived definition is gone and the named one now differs: a warning, never an index hit
    const byHash = join(d, 'processes', 'by-hash');
    for (const f of readdirSync(byHash)) unlinkSync(join(byHash, f));
    const named = join(d, 'processes', 'support-request.edn');
    writeFileSync(named, readFileSync(named, 'utf8').replace(':process/version 1', ':process/version 2'));
    const warned = await expectSameAnswer(d);
    expect(warned.stderr).toContain('differs');
    expect(await hits(d)).toBe(0);
    // and with no definition at all, every ticket is skipped and reported, as without the index
    unlinkSync(named);
    const skipped = await expectSameAnswer(d);
    expect(skipped.code).toBe(1);
    expect(skipped.stderr).toContain('process/unresolved');
  });

  it('stays whole under concurrent runs that write it, and then serves every ticket', async () => {
    const d = await store();
    const ids = await scenario(d);
    const where = ['ls', '--all', '--where', 'not disputed', '--json'];
    const runs = await Promise.all(
      [...Array(9).keys()].map((i) => (i % 3 === 0 ? ls(d) : i % 3 === 1 ? ls(d, {}, where) : ok(d, ['set', ids[i % 3]!, `severity=${i < 4 ? 'low' : 'normal'}`]))),
    );
    for (const r of runs) if (typeof r !== 'string') expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(join(d, '.tik-index')).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    await expectSameAnswer(d);
    await expectSameSelections(d);
    expect(await readDerived(join(d, '.tik-index'), 'ls.json', 'tik-ls-index/2')).toBeDefined();
    expect(await readDerived(join(d, '.tik-index'), 'select.json', 'tik-select-index/1')).toBeDefined();
    expect(await hits(d)).toBe(3);
    expect(await hits(d, T0, 'fields')).toBe(3);
  });

  it('serves ls --where and search: every selection answers as without it, from entries the first run kept', async () => {
    const d = await store();
    const [a, , c] = await scenario(d);
    // a selection alone builds the index, and the next one is served from it
    const selected = await expectSameSelections(d);
    expect(existsSync(join(d, INDEX))).toBe(true);
    expect(await hits(d, T0, 'fields')).toBe(3);
    expect(JSON.parse(selected[5]!)).toHaveLength(1); // disputed: c
    expect(selected[5]).toContain(c!);
    expect(JSON.parse(selected[7]!)).toHaveLength(3); // nothing is signed yet
    // signing adds sidecars, not events: the entries still hold, and `unsigned` reads the signatures
    const key = join(tempDir(), 'k');
    dirs.push(join(key, '..'));
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'seb', '-f', key]);
    await ok(d, ['sign', a!, '--key', key]);
    const signed = await expectSameSelections(d);
    expect(await hits(d, T0, 'fields')).toBe(3);
    expect(JSON.parse(signed[7]!)).toHaveLength(2);
    expect(signed[8]).toContain(a!);
    // proof that the rows come from the index: an event edited in place under its own name (the
    // documented blind spot) shows through TIK_INDEX=off only
    const events = join(d, 'tickets', c!, 'events');
    const file = readdirSync(events).find((f) => f.endsWith('.edn'))!;
    writeFileSync(join(events, file), '{:edited "in place"}');
    const disputed = ['ls', '--all', '--where', 'disputed', '--json'];
    expect((await ls(d, {}, disputed)).stdout).toBe(selected[5]);
    expect((await noIndex(d, {}, disputed)).code).toBe(1);
  });

  it('answers a selector of stages (and signatures) from ls.json alone, without select.json', async () => {
    const d = await store();
    await scenario(d);
    await ls(d);
    expect(existsSync(join(d, SELECT))).toBe(false);
    expect(await hits(d, T0, 'stages')).toBe(3);
    for (const where of ['stage=:triaged', 'not stage=received', 'stage=:triaged unsigned', 'not unsigned']) {
      await expectSameAnswer(d, {}, ['ls', '--all', '--where', where, '--json']);
      await expectSameAnswer(d, { TIK_NOW: H49 }, ['ls', '--all', '--where', where, '--json']);
    }
    // neither read nor written: a selector of stages alone does not need it
    expect(existsSync(join(d, SELECT))).toBe(false);
    await expectSameAnswer(d, {}, ['ls', '--all', '--where', 'stage=:triaged fact:severity', '--json']);
    expect(existsSync(join(d, SELECT))).toBe(true);
  });

  it('is not exported, synced or migrated', async () => {
    const d = await store();
    await scenario(d);
    await ls(d);
    await expectSameAnswer(d, {}, ['ls', '--where', 'disputed', '--json']);
    expect(existsSync(join(d, INDEX))).toBe(true);
    const verified = await tik(d, ['verify', '--json']);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).not.toContain('tik-index');
    const out = tempDir();
    dirs.push(out);
    await ok(d, ['export', join(out, 'tree')]);
    expect(existsSync(join(out, 'tree', '.tik-index'))).toBe(false);
    const replica = tempDir();
    dirs.push(replica);
    await ok(replica, ['init']);
    const report = await syncWith(new FileStore(replica), localTransport(new FileStore(d)));
    expect(report).toBeDefined();
    expect(readdirSync(join(replica, 'tickets'))).toHaveLength(3);
    expect(existsSync(join(replica, '.tik-index'))).toBe(false);
    await expectSameAnswer(replica);
  });
});
