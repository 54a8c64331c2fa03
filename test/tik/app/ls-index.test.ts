// The ls index is a cache, never authority (ADR 0013, issue 18): whatever happens to it or behind
// its back, `tik ls` answers exactly as a run that derives every ticket from the log (TIK_INDEX=off).
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { indexedLsRows } from '../../../src/tik/app/ls-index.js';
import { Instant } from '../../../src/tik/edn/value.js';
import { FileStore } from '../../../src/tik/store/file/file-store.js';
import { forgedDerived } from '../store/forged-derived.js';
import { readDerived } from '../../../src/tik/store/derived-file.js';
import { localTransport, syncWith } from '../../../src/tik/sync/index.js';
import { T0, cleanup, supportStore, tempDir, tik, type RunResult } from '../cli/harness.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});

const INDEX = '.tik-index/ls.json';
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

const hits = async (d: string, at = T0): Promise<number> => (await indexedLsRows(new FileStore(d), new Instant(Date.parse(at))))!.hits;

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
    for (const f of readdirSync(join(replica, events))) if (!existsSync(join(d, events, f))) cpSync(join(replica, events, f), join(d, events, f));
    const after = await expectSameAnswer(d);
    expect(after.stdout).not.toBe(before);
    expect(await hits(d)).toBe(3);
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
    const runs = await Promise.all([...Array(6).keys()].map((i) => (i % 2 === 0 ? ls(d) : ok(d, ['set', ids[i % 3]!, `severity=${i < 3 ? 'low' : 'normal'}`]))));
    for (const r of runs) if (typeof r !== 'string') expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(join(d, '.tik-index')).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    await expectSameAnswer(d);
    expect(await readDerived(join(d, '.tik-index'), 'ls.json', 'tik-ls-index/2')).toBeDefined();
    expect(await hits(d)).toBe(3);
  });

  it('is not used with a selector, and is not exported, synced or migrated', async () => {
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
