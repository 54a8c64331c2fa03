import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, eventFiles, json, snapshot, supportStore, tik } from './harness.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});

interface Reprocess {
  pinned: { version: number; hash: string };
  proposed: { version: number; hash: string };
  gained: string[];
  lost: string[];
  blockers: { stage: string; missing: string[] }[];
  applied: boolean;
  event: string | null;
}

/** A store with one triaged ticket and a v2 of its process whose :triaged also needs a component. */
async function setup(): Promise<{ d: string; id: string; v2: string }> {
  const d = await supportStore();
  dirs.push(d);
  const id = (await tik(d, ['new', 'support-request', '--title', 'Login fails'])).stdout.trim();
  expect((await tik(d, ['set', id, 'category=technical', 'severity=high'])).code).toBe(0);
  const v1 = readFileSync(join(d, 'processes/support-request.edn'), 'utf8');
  const v2 = v1.replace(':process/version 1', ':process/version 2').replace('[[:fact [:category]]\n            [:fact [:severity]]', '[[:fact [:category]]\n            [:fact [:severity]]\n            [:fact [:component]]');
  expect(v2).not.toBe(v1);
  writeFileSync(join(d, 'v2.edn'), v2);
  return { d, id, v2: 'v2.edn' };
}

describe('tik reprocess', () => {
  it('a dry run shows what the new rules change and writes nothing', async () => {
    const { d, id, v2 } = await setup();
    const before = snapshot(d);
    const r = await tik(d, ['reprocess', id, v2, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = json<Reprocess>(r);
    expect(out).toMatchObject({ pinned: { version: 1 }, proposed: { version: 2 }, lost: [':triaged'], gained: [], applied: false, event: null });
    expect(out.blockers).toEqual([{ stage: ':triaged', missing: [expect.stringContaining('component')] }]);
    expect(snapshot(d)).toEqual(before);
    const text = (await tik(d, ['reprocess', id, v2])).stdout;
    expect(text).toContain('  - stage :triaged would REGRESS (no longer derivable)');
    expect(text).toContain('dry run — nothing recorded');
  });

  it('--apply archives the definition and appends a :process/migrate the ticket then derives under', async () => {
    const { d, id, v2 } = await setup();
    const r = json<Reprocess>(await tik(d, ['reprocess', id, v2, '--apply', '--reason', 'components are required now', '--json']));
    expect(r.applied).toBe(true);
    expect(eventFiles(d, id)).toContain(`${r.event}.edn`);
    expect(readFileSync(join(d, 'processes/by-hash', `${r.proposed.hash}.edn`), 'utf8').length).toBeGreaterThan(0);
    const status = json<{ process: { version: number; hash: string }; reached: string[] }>(await tik(d, ['status', id, '--json']));
    expect(status.process).toMatchObject({ version: 2, hash: r.proposed.hash });
    expect(status.reached).not.toContain(':triaged');
    expect((await tik(d, ['set', id, 'component=auth'])).code).toBe(0);
    expect(json<{ reached: string[] }>(await tik(d, ['status', id, '--json'])).reached).toContain(':triaged');
    expect((await tik(d, ['verify'])).code).toBe(0);
    // the same definition again is refused: it is the pinned one now
    const again = await tik(d, ['reprocess', id, v2]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already pinned/);
  });

  it('--apply signs the migration with TIK_KEY, so verify names no unsigned migrate', async () => {
    const { d, id, v2 } = await setup();
    const key = join(d, 'seb');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'seb', '-f', key]);
    const r = json<Reprocess>(await tik(d, ['reprocess', id, v2, '--apply', '--json'], { TIK_KEY: key }));
    expect(readdirSync(join(d, 'tickets', id, 'events')).some((f) => f.startsWith(`${r.event}.sig.`))).toBe(true);
  });

  it('refuses a definition that fails lint, another process, or a missing file', async () => {
    const { d, id } = await setup();
    writeFileSync(join(d, 'bad.edn'), '{:process/id :support-request :process/version 3 :process/stages [{:stage/id :a :after [:nope]}]}');
    const bad = await tik(d, ['reprocess', id, 'bad.edn']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/process\/lint|process\/invalid/);
    writeFileSync(join(d, 'other.edn'), '{:process/id :other :process/version 1 :process/stages [{:stage/id :a}]}');
    const other = await tik(d, ['reprocess', id, 'other.edn']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/is a :support-request ticket/);
    const missing = await tik(d, ['reprocess', id, 'nope.edn']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cli\/no-file/);
  });
});
