// The status cache is a cache, never authority (ADR 0013, issue 18): whatever happens to it or
// behind its back, `tik status --json` answers exactly as a run that derives the ticket from the
// log (TIK_INDEX=off): stdout, stderr and exit code.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StatusCache } from '../../../src/tik/app/status-cache.js';
import { Instant } from '../../../src/tik/edn/value.js';
import { FileStore } from '../../../src/tik/store/file/file-store.js';
import { forgedDerived } from '../store/forged-derived.js';
import { T0, scratchDirs, tik, type RunResult } from '../cli/harness.js';

const scratch = scratchDirs();
const store = scratch.supportStore;

const H49 = '2026-07-10T11:00:00Z'; // T0 + 49 h: support-request's :escalated needs 48 h without a category
const fileOf = (d: string, ticket: string): string => join(d, '.tik-index', 'status', ticket.slice(0, 2), `${ticket}.json`);

/** A write that must succeed; its stdout (a ticket id for `new`). */
async function write(d: string, args: string[]): Promise<string> {
  const r = await tik(d, args);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

/** Two tickets: one triaged and disputed, one untouched (escalates after 48 h). */
async function scenario(d: string): Promise<[string, string]> {
  const a = await write(d, ['new', 'support-request', '--title', 'Login fails']);
  const b = await write(d, ['new', 'support-request', '--title', 'Nothing yet']);
  await write(d, ['set', a, 'category=technical', 'severity=high']);
  await write(d, ['--actor', 'customer', 'dispute', a, 'severity']);
  return [a, b];
}

const status = (d: string, t: string, env: Record<string, string> = {}): Promise<RunResult> => tik(d, ['status', t, '--json'], env);

/** `status --json` through the cache equals it without: stdout, stderr and exit code. */
async function expectSameAnswer(d: string, t: string, env: Record<string, string> = {}): Promise<RunResult> {
  const want = await status(d, t, { ...env, TIK_INDEX: 'off' });
  const got = await status(d, t, env);
  expect(got).toEqual(want);
  return got;
}

/** Whether a fresh cache (no memory, as a new CLI run) answers `t` at `at` from the kept file. */
async function hit(d: string, t: string, at = T0): Promise<boolean> {
  const cache = new StatusCache(new FileStore(d), 'bytes');
  await cache.status({ warn: () => undefined }, t, new Instant(Date.parse(at)));
  return cache.hits === 1;
}

describe('the status cache', () => {
  it('is written by the first status, serves the next, and answers as the log does', async () => {
    const d = await store();
    const [a, b] = await scenario(d);
    expect(existsSync(fileOf(d, a))).toBe(false);
    const first = await expectSameAnswer(d, a);
    expect(JSON.parse(first.stdout)).toMatchObject({ ticket: a, title: 'Login fails', at: T0 });
    expect(existsSync(fileOf(d, a))).toBe(true);
    expect(await hit(d, a)).toBe(true);
    // only `at` differs between instants inside the window
    const later = await expectSameAnswer(d, a, { TIK_NOW: '2026-07-08T12:00:00Z' });
    expect(JSON.parse(later.stdout).at).not.toBe(JSON.parse(first.stdout).at);
    expect({ ...JSON.parse(later.stdout), at: T0 }).toEqual(JSON.parse(first.stdout));
    await expectSameAnswer(d, b);
    // a prefix, and the human rendering, answer as before too
    await expectSameAnswer(d, a.slice(0, 8));
    const text = await tik(d, ['status', a]);
    expect(text).toEqual(await tik(d, ['status', a], { TIK_INDEX: 'off' }));
  });

  it('changes no answer when deleted, truncated or corrupted', async () => {
    const d = await store();
    const [a] = await scenario(d);
    const want = (await status(d, a, { TIK_INDEX: 'off' })).stdout;
    await status(d, a);
    rmSync(join(d, '.tik-index'), { recursive: true });
    expect((await expectSameAnswer(d, a)).stdout).toBe(want);

    truncateSync(fileOf(d, a), 100);
    expect(await hit(d, a)).toBe(false);
    expect((await expectSameAnswer(d, a)).stdout).toBe(want);

    // one byte of the title changed: still JSON, but the HMAC no longer holds
    const text = readFileSync(fileOf(d, a), 'utf8');
    expect(text).toContain('Login fails');
    writeFileSync(fileOf(d, a), text.replace('Login fails', 'Login failz'));
    expect(await hit(d, a)).toBe(false);
    expect((await expectSameAnswer(d, a)).stdout).toBe(want);
    expect(await hit(d, a)).toBe(true);

    writeFileSync(fileOf(d, a), 'not a cache');
    expect((await expectSameAnswer(d, a)).stdout).toBe(want);
  });

  it('changes no answer when forged without this user\'s key, or when an authentic entry is copied to another ticket', async () => {
    const d = await store();
    const [a, b] = await scenario(d);
    const want = (await status(d, a, { TIK_INDEX: 'off' })).stdout;
    await status(d, a);
    for (const forged of forgedDerived(readFileSync(fileOf(d, a), 'utf8'), 'Login fails', 'Login forged')) {
      writeFileSync(fileOf(d, a), forged);
      expect(await hit(d, a)).toBe(false);
      const got = (await expectSameAnswer(d, a)).stdout;
      expect(got).toBe(want);
      expect(got).not.toContain('Login forged');
    }
    // a's authentic entry under b's name is not b's
    await status(d, a);
    cpSync(fileOf(d, a), fileOf(d, b));
    expect(await hit(d, b)).toBe(false);
    expect(JSON.parse((await expectSameAnswer(d, b)).stdout).title).toBe('Nothing yet');
  });

  it('sees an event copied in behind its back (a file from a replica)', async () => {
    const d = await store();
    const [a] = await scenario(d);
    const replica = scratch.dir();
    cpSync(d, replica, { recursive: true });
    const before = (await status(d, a)).stdout;
    expect(await hit(d, a)).toBe(true);
    await write(replica, ['retract', a, 'severity']);
    const events = join('tickets', a, 'events');
    for (const f of readdirSync(join(replica, events))) if (!existsSync(join(d, events, f))) cpSync(join(replica, events, f), join(d, events, f));
    expect(await hit(d, a)).toBe(false);
    const after = await expectSameAnswer(d, a);
    expect(after.stdout).not.toBe(before);
  });

  it('fails as without it when an event is edited in place (the bytes are hashed on every CLI read)', async () => {
    const d = await store();
    const [a] = await scenario(d);
    await status(d, a);
    const dir = join(d, 'tickets', a, 'events');
    const f = readdirSync(dir).find((n) => n.endsWith('.edn'))!;
    writeFileSync(join(dir, f), readFileSync(join(dir, f), 'utf8').replace('seb', 'bob'));
    const r = await expectSameAnswer(d, a);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('event/hash-mismatch');
  });

  it('derives again when a time guard expires, and when TIK_NOW goes back', async () => {
    const d = await store();
    const [, b] = await scenario(d);
    const atT0 = await expectSameAnswer(d, b);
    expect(JSON.parse(atT0.stdout).current).toEqual([':received']);
    // the entry derived at T0 ends at T0 + 48 h (the PT48H guard)
    expect(await hit(d, b, H49)).toBe(false);
    const later = await expectSameAnswer(d, b, { TIK_NOW: H49 });
    expect(JSON.parse(later.stdout).current).toEqual([':escalated']);
    expect(await hit(d, b, H49)).toBe(true);
    expect(await hit(d, b, T0)).toBe(false);
    await expectSameAnswer(d, b);
    await expectSameAnswer(d, b, { TIK_NOW: H49 });
  });

  it('follows the definition and the roles register', async () => {
    const d = await store();
    const [a] = await scenario(d);
    await status(d, a);
    // seb is no longer a triager: the ticket is no longer triaged
    writeFileSync(join(d, 'roles.edn'), '{:triager {:members ["ana"]} :billing {:members ["billing"]}}');
    expect(await hit(d, a)).toBe(false);
    const r = await expectSameAnswer(d, a);
    expect(JSON.parse(r.stdout).reached).not.toContain(':triaged');
    // the archived definition is gone and the named one now differs: a warning, never a hit
    const byHash = join(d, 'processes', 'by-hash');
    for (const f of readdirSync(byHash)) unlinkSync(join(byHash, f));
    const named = join(d, 'processes', 'support-request.edn');
    writeFileSync(named, readFileSync(named, 'utf8').replace(':process/version 1', ':process/version 2'));
    const warned = await expectSameAnswer(d, a);
    expect(warned.stderr).toContain('differs');
    expect(await hit(d, a)).toBe(false);
    // and with no definition at all, the read fails as without the cache
    unlinkSync(named);
    const failed = await expectSameAnswer(d, a);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain('process/unresolved');
  });

  it('repeats the incomplete-log warning of a ticket with missing parents', async () => {
    const d = await store();
    const [a] = await scenario(d);
    const dir = join(d, 'tickets', a, 'events');
    // remove the create's first child: its children now name a missing parent
    const files = readdirSync(dir).filter((n) => n.endsWith('.edn'));
    const child = files.find((n) => readFileSync(join(dir, n), 'utf8').includes(':fact/assert'))!;
    unlinkSync(join(dir, child));
    const first = await expectSameAnswer(d, a);
    expect(first.stderr).toContain('INCOMPLETE');
    expect(await hit(d, a)).toBe(true);
    const second = await expectSameAnswer(d, a);
    expect(second.stderr).toContain('INCOMPLETE');
  });
});
