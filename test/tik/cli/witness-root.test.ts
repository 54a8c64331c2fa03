import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { json, scratchDirs, snapshot, tik } from './harness.js';

/** `tik witness` (countersign a ticket's heads) and `tik root` (one hash for the store, optionally countersigned). */
const scratch = scratchDirs();
const store = scratch.supportStore;

function keypair(name: string): string {
  const path = join(scratch.dir('tik-keys-'), name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', path]);
  return path;
}

interface VerifyJson {
  ok: boolean;
  tickets: { levels: Record<string, { ok: boolean; problems: { code: string }[]; notes: { code: string }[] }> }[];
  store: { ok: boolean; problems: { code: string }[]; notes: { code: string }[] };
}

interface WitnessJson {
  ticket: string;
  fpr16: string;
  heads: { event: string; sidecar: string; written: boolean }[];
}

interface RootJson {
  root: string;
  tickets: number;
  document: string;
  witness: { sidecar: string; written: boolean } | null;
  anchor: { sidecar: string; written: boolean } | null;
}

/**
 * A directory holding an `ots` executable with this shell body. The real opentimestamps-client
 * sends the file's digest to public calendars, which a test cannot reach; this one writes, as
 * `ots stamp FILE` does, `FILE.ots` beside the file, holding the SHA-256 of the bytes it was given.
 */
function otsBin(body: string): string {
  const dir = scratch.dir('tik-ots-');
  writeFileSync(join(dir, 'ots'), `#!/bin/sh\n${body}\n`);
  chmodSync(join(dir, 'ots'), 0o755);
  return dir;
}
const STAMPS = '[ "$1" = stamp ] && [ -f "$2" ] || exit 64\nprintf "proof of %s\\n" "$(sha256sum "$2" | cut -d" " -f1)" > "$2.ots"';

describe('tik witness', () => {
  it('countersigns every current head, once; verify checks the witnesses (L3)', async () => {
    const d = await store();
    const key = keypair('notary');
    await tik(d, ['actor', 'add', 'notary', `${key}.pub`]);
    const id = (await tik(d, ['new', 'support-request'])).stdout.trim();
    // two replicas write concurrently on the create; the union has two heads
    const other = await store();
    await tik(other, ['import', d]);
    const mine = json<{ events: { id: string }[] }>(await tik(d, ['set', id, 'category=technical', '--json'])).events[0]!.id;
    const theirs = json<{ events: { id: string }[] }>(await tik(other, ['--actor', 'rando', 'set', id, 'severity=high', '--json'])).events[0]!.id;
    await tik(d, ['import', other]);
    const r = json<WitnessJson>(await tik(d, ['witness', id.slice(0, 8), '--key', key, '--json']));
    expect(r.ticket).toBe(id);
    expect(r.heads.map((h) => h.event)).toEqual([mine, theirs].sort());
    expect(r.heads.every((h) => h.written && h.sidecar === `${h.event}.witness.${r.fpr16}`)).toBe(true);
    expect(readdirSync(join(d, 'tickets', id, 'events')).filter((f) => f.includes('.witness.'))).toHaveLength(2);
    // witnessing again writes nothing
    const before = snapshot(d);
    const again = await tik(d, ['witness', id, '--key', key]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`${r.heads.map((h) => `witnessed ${h.event.slice(0, 19)}…\n`).join('')}2 head(s) countersigned — each timestamps its entire ancestry\n`);
    expect(snapshot(d)).toEqual(before);
    const v = json<VerifyJson>(await tik(d, ['verify', '--json']));
    expect(v.ok).toBe(true);
    expect(v.tickets[0]!.levels.L3!.ok).toBe(true);
    // a later event is an unwitnessed head: verify notes it, and witness covers it
    await tik(d, ['set', id, 'severity=low']);
    expect(json<VerifyJson>(await tik(d, ['verify', '--json'])).tickets[0]!.levels.L3!.notes.map((n) => n.code)).toContain('L3/unwitnessed-heads');
    expect(json<WitnessJson>(await tik(d, ['witness', id, '--key', key, '--json'])).heads.map((h) => h.written)).toEqual([true]);
  });

  it('with TIK_KEY as the key; without any key it is a usage error that writes nothing', async () => {
    const d = await store();
    const id = (await tik(d, ['new', 'support-request'])).stdout.trim();
    const before = snapshot(d);
    const none = await tik(d, ['witness', id]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/cli\/usage: no signing key/);
    expect(snapshot(d)).toEqual(before);
    const unknown = await tik(d, ['witness', 'ffffffff', '--key', keypair('k')]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/ticket\/unknown/);
    expect(json<WitnessJson>(await tik(d, ['witness', id, '--json'], { TIK_KEY: keypair('k2') })).heads).toHaveLength(1);
  });
});

describe('tik root', () => {
  it('is one hash over {ticket #{heads}}: equal on replicas holding the same events, different otherwise', async () => {
    const a = await store();
    const empty = json<RootJson>(await tik(a, ['root', '--json']));
    expect(empty).toMatchObject({ tickets: 0, document: '{}', witness: null });
    const id = (await tik(a, ['new', 'support-request'])).stdout.trim();
    await tik(a, ['set', id, 'category=technical']);
    const ra = json<RootJson>(await tik(a, ['root', '--json']));
    const head = readdirSync(join(a, 'tickets', id, 'events')).sort();
    expect(ra.tickets).toBe(1);
    expect(ra.document).toMatch(new RegExp(`^\\{#uuid "${id}" #\\{"sha256-[0-9a-f]{64}"\\}\\}$`));
    expect(head.map((f) => f.replace(/\.edn$/, ''))).toContain(/"(sha256-[0-9a-f]{64})"/.exec(ra.document)![1]);
    const b = await store();
    await tik(b, ['import', a]);
    expect(json<RootJson>(await tik(b, ['root', '--json'])).root).toBe(ra.root);
    await tik(b, ['set', id, 'severity=high']);
    expect(json<RootJson>(await tik(b, ['root', '--json'])).root).not.toBe(ra.root);
    const human = await tik(a, ['root']);
    expect(human.stdout).toBe(`${ra.root} (1 tickets)\n`);
  });

  it('--witness countersigns the regenerated document; verify checks it, and notes it once the store grows', async () => {
    const d = await store();
    const key = keypair('notary');
    await tik(d, ['actor', 'add', 'notary', `${key}.pub`]);
    const id = (await tik(d, ['new', 'support-request'])).stdout.trim();
    const r = json<RootJson>(await tik(d, ['root', '--witness', '--json'], { TIK_KEY: key }));
    expect(r.witness!.written).toBe(true);
    expect(readdirSync(join(d, 'roots'))).toEqual([r.witness!.sidecar]);
    expect(r.witness!.sidecar.startsWith(`${r.root}.witness.`)).toBe(true);
    // the signature is over the document's bytes, in namespace tik-witness: ssh-keygen agrees
    const signers = join(scratch.dir('tik-doc-'), 'signers');
    writeFileSync(signers, `notary ${readFileSync(`${key}.pub`, 'utf8')}`);
    execFileSync('ssh-keygen', ['-Y', 'verify', '-f', signers, '-I', 'notary', '-n', 'tik-witness', '-s', join(d, 'roots', r.witness!.sidecar)], { input: r.document });
    const human = await tik(d, ['root', '--witness', '--key', key]);
    expect(human.stdout).toBe(`${r.root} (1 tickets)\nwitnessed ${r.root.slice(0, 19)}… -> ${r.witness!.sidecar}\n`);
    expect(json<VerifyJson>(await tik(d, ['verify', '--json'])).store.ok).toBe(true);
    await tik(d, ['set', id, 'category=technical']);
    const v = json<VerifyJson>(await tik(d, ['verify', '--json']));
    expect(v.store.notes.map((n) => n.code)).toContain('store/stale-root-witness');
  });

  it('--witness without a key or with --remote are refused before anything is written', async () => {
    const d = await store();
    await tik(d, ['new', 'support-request']);
    const before = snapshot(d);
    const noKey = await tik(d, ['root', '--witness']);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/cli\/usage: no signing key/);
    const remote = await tik(d, ['--remote', 'http://127.0.0.1:9', 'root', '--witness', '--key', keypair('k')]);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/root --witness cannot run with --remote/);
    expect(snapshot(d)).toEqual(before);
  });

  it('--anchor stamps the root document with the external ots tool and keeps the proof as roots/<root>.ots', async () => {
    const d = await store();
    const id = (await tik(d, ['new', 'support-request'])).stdout.trim();
    const withOts = (bin: string) => ({ PATH: `${bin}:${process.env.PATH ?? ''}` });
    const r = json<RootJson>(await tik(d, ['root', '--anchor', '--json'], withOts(otsBin(STAMPS))));
    expect(r.anchor).toEqual({ sidecar: `${r.root}.ots`, written: true });
    expect(r.witness).toBeNull();
    // the proof is over the document's bytes, whose SHA-256 is the root; the document is not kept
    expect(readdirSync(join(d, 'roots'))).toEqual([`${r.root}.ots`]);
    expect(readFileSync(join(d, 'roots', `${r.root}.ots`), 'utf8')).toBe(`proof of ${r.root.slice('sha256-'.length)}\n`);
    // a root already anchored keeps its proof (an upgraded one holds the block): ots is not run again
    const before = snapshot(d);
    const failing = otsBin('echo "should not run" >&2; exit 1');
    const again = await tik(d, ['root', '--anchor'], withOts(failing));
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`${r.root} (1 tickets)\nanchored ${r.root.slice(0, 19)}… -> ${r.root}.ots (already stamped; upgrade after ~1 block: ots upgrade)\n`);
    expect(snapshot(d)).toEqual(before);
    // a new root: the stamp fails (calendars unreachable), exit 1, nothing written
    await tik(d, ['set', id, 'category=technical']);
    const grown = snapshot(d);
    const failed = await tik(d, ['root', '--anchor'], withOts(otsBin('echo "calendar https://a.pool.opentimestamps.org unreachable" >&2; exit 1')));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/root\/anchor-failed: anchor failed \(calendars unreachable\?\): calendar https:\/\/a\.pool\.opentimestamps\.org unreachable/);
    expect(snapshot(d)).toEqual(grown);
    const human = await tik(d, ['root', '--anchor'], withOts(otsBin(STAMPS)));
    const root = human.stdout.split(' ')[0]!;
    expect(human.stdout).toBe(`${root} (1 tickets)\nanchored ${root.slice(0, 19)}… -> ${root}.ots (upgrade after ~1 block: ots upgrade)\n`);
    expect(readdirSync(join(d, 'roots')).sort()).toEqual([`${r.root}.ots`, `${root}.ots`].sort());
  });

  it('--anchor without the ots tool, or with --remote, is refused and writes nothing', async () => {
    const d = await store();
    await tik(d, ['new', 'support-request']);
    const before = snapshot(d);
    const missing = await tik(d, ['root', '--anchor'], { PATH: scratch.dir('tik-empty-path-') });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/root\/anchor-unavailable: --anchor needs the external `ots` tool \(opentimestamps-client\)/);
    const remote = await tik(d, ['--remote', 'http://127.0.0.1:9', 'root', '--anchor'], { PATH: otsBin(STAMPS) });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/root --anchor cannot run with --remote/);
    expect(snapshot(d)).toEqual(before);
  });
});
