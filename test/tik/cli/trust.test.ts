import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, CONFORMANCE, eventFiles, json, snapshot, supportStore, tempDir, tik } from './harness.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});

async function store(): Promise<string> {
  const d = await supportStore();
  dirs.push(d);
  return d;
}

function keypair(dir: string, name: string): string {
  const path = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', path]);
  return path;
}

interface VerifyJson {
  ok: boolean;
  tickets: { ticket: string; ok: boolean; signed: number; events: number; levels: Record<string, { ok: boolean; problems: { code: string }[] }> }[];
}

describe('signing and verify', () => {
  it('sign signs only the current actor\'s own events, and verify checks them against actors', async () => {
    const d = await store();
    const keys = tempDir('tik-keys-');
    dirs.push(keys);
    const seb = keypair(keys, 'seb');
    const id = (await tik(d, ['new', 'support-request'])).stdout.trim();
    await tik(d, ['--actor', 'rando', 'set', id, 'category=technical']);
    await tik(d, ['set', id, 'severity=high']);
    const added = json<{ name: string; fpr16: string }>(await tik(d, ['actor', 'add', 'seb', `${seb}.pub`, '--json']));
    expect(added.name).toBe('seb');
    const signed = json<{ signed: { event: string }[]; fpr16: string }>(await tik(d, ['sign', '--key', seb, '--json']));
    expect(signed.signed).toHaveLength(2);
    expect(signed.fpr16).toBe(added.fpr16);
    const sidecars = readdirSync(join(d, 'tickets', id, 'events')).filter((f) => f.includes('.sig.'));
    expect(sidecars).toHaveLength(2);
    expect(sidecars.every((f) => f.endsWith(`.sig.${added.fpr16}`))).toBe(true);
    // Signing again is a no-op.
    expect(json<{ signed: unknown[] }>(await tik(d, ['sign', '--key', seb, '--json'])).signed).toEqual([]);
    const report = json<VerifyJson>(await tik(d, ['verify', '--json']));
    expect(report.ok).toBe(true);
    expect(report.tickets[0]).toMatchObject({ ticket: id, ok: true, signed: 2, events: 3 });
  });

  it('TIK_KEY signs every write; a key that is not the actor\'s fails L1', async () => {
    const d = await store();
    const keys = tempDir('tik-keys-');
    dirs.push(keys);
    const seb = keypair(keys, 'seb');
    const mallory = keypair(keys, 'mallory');
    await tik(d, ['actor', 'add', 'seb', `${seb}.pub`]);
    await tik(d, ['actor', 'add', 'mallory', `${mallory}.pub`]);
    const id = (await tik(d, ['new', 'support-request'], { TIK_KEY: seb })).stdout.trim();
    await tik(d, ['set', id, 'category=technical'], { TIK_KEY: seb });
    expect(json<VerifyJson>(await tik(d, ['verify', '--json'])).tickets[0]!.signed).toBe(2);
    // mallory's key signing an event that says it is by seb: authorship does not verify as seb.
    await tik(d, ['set', id, 'severity=high'], { TIK_KEY: mallory });
    const r = await tik(d, ['verify']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/L1/);
  });
});

describe('partial logs and unresolvable pins', () => {
  it('a missing parent still derives, warns, and is listed in missingParents', async () => {
    const d = await store();
    const id = (await tik(d, ['new', 'support-request'])).stdout.trim();
    const first = (await tik(d, ['set', id, 'category=technical'])).stdout.split(' ')[0]!;
    await tik(d, ['set', id, 'severity=high']);
    unlinkSync(join(d, 'tickets', id, 'events', `${first}.edn`));
    const r = await tik(d, ['status', id, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/INCOMPLETE/);
    expect(JSON.parse(r.stdout).missingParents).toEqual([first]);
    expect((await tik(d, ['status', id])).stdout).toMatch(/log: INCOMPLETE/);
    expect((await tik(d, ['verify'])).code).toBe(1);
  });

  it('a pin that resolves nowhere is a clear error for reads, and verify fails L2', async () => {
    const d = await store();
    const id = (await tik(d, ['new', 'support-request'])).stdout.trim();
    rmSync(join(d, 'processes', 'by-hash'), { recursive: true });
    rmSync(join(d, 'processes', 'support-request.edn'));
    const before = snapshot(d);
    const r = await tik(d, ['status', id]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/process\/unresolved: ticket .* its process definition cannot be found/);
    const v = json<VerifyJson>({ ...(await tik(d, ['verify', '--json'])), code: 0 });
    expect(v.ok).toBe(false);
    expect(v.tickets[0]!.levels.L2!.ok).toBe(false);
    const ls = await tik(d, ['ls', '--json']);
    expect(ls.code).toBe(1);
    expect(ls.stderr).toMatch(/cannot be found/);
    expect(snapshot(d)).toEqual(before);
  });

  it('falls back to the named definition when the archive is gone', async () => {
    const d = await store();
    const id = (await tik(d, ['new', 'support-request'])).stdout.trim();
    rmSync(join(d, 'processes', 'by-hash'), { recursive: true });
    const r = await tik(d, ['status', id, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).reached).toEqual([':received']);
  });
});

describe('a hidden store', () => {
  it('works the same under .tik/', async () => {
    const d = tempDir();
    dirs.push(d);
    await tik(d, ['init', '--hidden']);
    copyFileSync(join(CONFORMANCE, 'processes/support-request.edn'), join(d, '.tik/processes/support-request.edn'));
    const id = (await tik(d, ['new', 'support-request'])).stdout.trim();
    await tik(d, ['set', id, 'category=technical']);
    expect(eventFiles(join(d, '.tik'), id)).toHaveLength(2);
    expect(json<{ facts: Record<string, unknown> }>(await tik(d, ['status', id, '--json'])).facts.category).toBeDefined();
  });
});
