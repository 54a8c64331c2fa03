import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE, eventFiles, json, scratchDirs, snapshot, tik } from './harness.js';

/**
 * `tik probe`: the one verb that takes facts from outside the log. A probe that could not run
 * must never read as a probe that found nothing changed (both assert nothing; only one measured),
 * and what it asserts is self-minted, so deterministic in every byte (law T5).
 */
const scratch = scratchDirs();

const PATH = { PATH: process.env.PATH };

interface ProbeJson {
  at: string;
  ran: number;
  skipped: number;
  failed: number;
  derived: number;
  tickets: { ticket: string; repo: string | null; outcome: string; reason: string | null; facts: { key: string; value: string; event: string; at: string }[]; gained: string[] }[];
  unreadable?: { ticket: string; code: string; message: string }[];
}

/** A store with the `track` process and one ticket holding `facts`; `repo` (if given) is created beside it. */
async function trackTicket(facts: string[], repo?: string): Promise<{ d: string; id: string }> {
  const d = scratch.dir('tik-probe-');
  await tik(d, ['init']);
  copyFileSync(join(CONFORMANCE, 'processes/track.edn'), join(d, 'processes/track.edn'));
  const id = (await tik(d, ['new', 'track', '--title', 'probe subject'])).stdout.trim();
  if (facts.length > 0) await tik(d, ['set', id, ...facts]);
  if (repo !== undefined) mkdirSync(join(d, repo));
  return { d, id };
}

const probeIn = (d: string, args: string[], env: Record<string, string | undefined> = {}) => tik(d, ['probe', ...args], { ...PATH, ...env });

describe('tik probe', () => {
  it('names a ticket without a [:repo] fact as unprobeable instead of reporting zero facts', async () => {
    const { d, id } = await trackTicket(['workload=opengist']);
    const before = snapshot(d);
    const r = await probeIn(d, [id, '--command', 'echo gate=green']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/probe\/unprobeable: cannot probe .* no \[:repo\] fact/);
    expect(r.stdout).not.toMatch(/fact\(s\) derived/);
    expect(snapshot(d)).toEqual(before);
  });

  it('refuses a named ticket whose definition declares no :probe, or whose repository is absent', async () => {
    const noProbe = await trackTicket(['repo=widget'], 'widget');
    const a = await probeIn(noProbe.d, [noProbe.id]);
    expect(a.code).toBe(1);
    expect(a.stderr).toMatch(/declares no :probe — pass --command/);
    const noDir = await trackTicket(['repo=absent']);
    const b = await probeIn(noDir.d, [noDir.id, '--command', 'echo gate=green']);
    expect(b.code).toBe(1);
    expect(b.stderr).toMatch(/no such directory beside the store: absent/);
    const escape = await trackTicket(['repo="../x"']);
    const c = await probeIn(escape.d, [escape.id, '--command', 'echo gate=green']);
    expect(c.code).toBe(1);
    expect(c.stderr).toMatch(/not a plain directory name/);
  });

  it('a named probe that exits non-zero fails the command and records nothing', async () => {
    const { d, id } = await trackTicket(['repo=widget'], 'widget');
    const before = snapshot(d);
    const r = await probeIn(d, [id, '--command', 'echo boom >&2; exit 7']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/probe\/failed: the probe of .* \(widget\) failed \(exit 7\): boom/);
    expect(snapshot(d)).toEqual(before);
  });

  it('a key that is not a dotted key refuses the whole output', async () => {
    const { d, id } = await trackTicket(['repo=widget'], 'widget');
    const before = snapshot(d);
    const r = await probeIn(d, [id, '--command', 'echo gate=green; echo 9lives=1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/probe\/bad-output: .*line 2/);
    expect(snapshot(d)).toEqual(before);
  });

  it('the sweep counts what it could not probe, goes on past a failed probe, and exits 1 for it', async () => {
    const { d } = await trackTicket(['workload=opengist']);
    const skipped = await probeIn(d, ['--command', 'echo gate=green']);
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toMatch(/0 fact\(s\) derived .*\(0 probe\(s\) ran, 1 ticket\(s\) had nothing to probe\)/);
    const id2 = (await tik(d, ['new', 'track'])).stdout.trim();
    await tik(d, ['set', id2, 'repo=widget']);
    mkdirSync(join(d, 'widget'));
    const failedRun = await probeIn(d, ['--command', 'echo gate=green; exit 3', '--json']);
    expect(failedRun.code).toBe(1);
    const failed = JSON.parse(failedRun.stdout) as ProbeJson;
    expect(failed).toMatchObject({ ran: 1, skipped: 1, failed: 1, derived: 0 });
    expect(failed.tickets.find((t) => t.ticket === id2)).toMatchObject({ outcome: 'failed', repo: 'widget', facts: [] });
    const human = await probeIn(d, ['--command', 'exit 3']);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(`${id2.slice(0, 8)} widget: probe failed — `);
    expect(human.stdout).toMatch(/\(1 probe\(s\) ran, 1 ticket\(s\) had nothing to probe, 1 failed\)/);
    // a ticket that cannot be read is named and left out; the others are probed; exit 1
    const id3 = (await tik(d, ['new', 'track'])).stdout.trim();
    writeFileSync(join(d, 'tickets', id3, 'events', eventFiles(d, id3)[0]!), '{:not "its hash"}');
    const unreadable = await probeIn(d, ['--command', 'echo gate=green', '--json']);
    expect(unreadable.code).toBe(1);
    expect(unreadable.stderr).toMatch(new RegExp(`ticket ${id3}: event/hash-mismatch: .*; skipped`));
    const body = JSON.parse(unreadable.stdout) as ProbeJson;
    expect(body.unreadable!.map((u) => [u.ticket, u.code])).toEqual([[id3, 'event/hash-mismatch']]);
    expect(body).toMatchObject({ ran: 1, failed: 0, derived: 1 });
  });

  it('asserts what changed, reports that it ran, and is idempotent', async () => {
    const { d, id } = await trackTicket(['repo=widget'], 'widget');
    const r = await probeIn(d, [id, '--command', 'echo gate=green; echo note: not a fact; echo outcome="shipped it"']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${id.slice(0, 8)} widget: gate = :green`);
    expect(r.stdout).toContain(`${id.slice(0, 8)} widget: outcome = "shipped it"`);
    expect(r.stdout).toContain(`${id.slice(0, 8)} widget -> done`);
    expect(r.stdout).toMatch(/2 fact\(s\) derived .*\(1 probe\(s\) ran\)/);
    const status = json<{ facts: Record<string, { value: string; by: string }> }>(await tik(d, ['status', id, '--json']));
    expect(status.facts.gate).toMatchObject({ value: ':green', by: 'seb' });
    const before = snapshot(d);
    const again = await probeIn(d, [id, '--command', 'echo gate=green']);
    expect(again.stdout).toMatch(/0 fact\(s\) derived .*\(1 probe\(s\) ran\)/);
    expect(snapshot(d)).toEqual(before);
    // a changed value is asserted over the old one
    const moved = json<ProbeJson>(await probeIn(d, [id, '--command', 'echo gate=red', '--json']));
    expect(moved.tickets[0]!.facts.map((f) => [f.key, f.value])).toEqual([['gate', ':red']]);
  });

  it('runs the :probe of its process, a script relative to the store, with the facts in its environment', async () => {
    const d = scratch.dir('tik-probe-');
    await tik(d, ['init']);
    writeFileSync(
      join(d, 'processes/probed.edn'),
      '{:process/id :probed :process/version 1 :probe "probes/gate.sh" :process/stages [{:stage/id :open :guards []} {:stage/id :green :after [:open] :guards [[:fact= [:gate] :green]]}]}',
    );
    mkdirSync(join(d, 'probes'));
    writeFileSync(join(d, 'probes/gate.sh'), 'echo "subject=$TIK_FACT_WORKLOAD"\necho "seen=\\"$TIK_TICKET\\""\necho "where=\\"$TIK_REPO $(basename "$PWD")\\""\necho gate=green\n');
    mkdirSync(join(d, 'widget'));
    const id = (await tik(d, ['new', 'probed'])).stdout.trim();
    await tik(d, ['set', id, 'repo=widget', 'workload=opengist', 'ticket=impostor', 'a-b=1', 'a_b=2']);
    const r = await probeIn(d, [id, '--json']);
    const out = json<ProbeJson>(r);
    expect(Object.fromEntries(out.tickets[0]!.facts.map((f) => [f.key, f.value]))).toEqual({
      subject: ':opengist',
      // a fact named `ticket` exports as TIK_FACT_TICKET: it cannot change which ticket this is
      seen: JSON.stringify(id),
      where: '"widget widget"',
      gate: ':green',
    });
    expect(out.tickets[0]!.gained).toEqual([':green']);
    // [:a-b] and [:a_b] both sanitise to TIK_FACT_A_B: exported for neither, and said so
    expect(r.stderr).toMatch(/TIK_FACT_A_B is ambiguous between \[:a-b\] and \[:a_b\] — exported for neither/);
  });

  it('takes the command from this store\'s named definition, never from the pin a peer may have written', async () => {
    const d = scratch.dir('tik-probe-');
    await tik(d, ['init']);
    const def = (probe: string) =>
      `{:process/id :probed :process/version 1 ${probe} :process/stages [{:stage/id :open :guards []}]}`;
    writeFileSync(join(d, 'processes/probed.edn'), def(':probe "echo pinned=ran"'));
    mkdirSync(join(d, 'widget'));
    const id = (await tik(d, ['new', 'probed'])).stdout.trim();
    await tik(d, ['set', id, 'repo=widget']);
    // the named file moves on (no re-pin): its :probe is what runs
    writeFileSync(join(d, 'processes/probed.edn'), def(':probe "echo named=ran"'));
    const r = json<ProbeJson>(await probeIn(d, [id, '--json']));
    expect(r.tickets[0]!.facts.map((f) => f.key)).toEqual(['named']);
    // the pin still declares a :probe; the named file does not: nothing runs
    writeFileSync(join(d, 'processes/probed.edn'), def(''));
    const before = snapshot(d);
    const none = await probeIn(d, [id]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/processes\/probed\.edn declares no :probe — pass --command/);
    writeFileSync(join(d, 'processes/probed.edn'), '{:probe');
    expect((await probeIn(d, [id])).stderr).toMatch(/processes\/probed\.edn cannot be read \(edn\/malformed/);
    expect(snapshot(d)).toEqual({ ...before, 'processes/probed.edn': snapshot(d)['processes/probed.edn']! });
  });

  it('dates the facts at the observation instant: the start of the minute, or --at, past a later parent', async () => {
    const { d, id } = await trackTicket(['repo=widget'], 'widget');
    const r = json<ProbeJson>(await probeIn(d, [id, '--command', 'echo a=1; echo b=2', '--json'], { TIK_NOW: '2026-07-08T10:05:42.123Z' }));
    expect(r.at).toBe('2026-07-08T10:05:00Z');
    expect(r.tickets[0]!.facts.map((f) => f.at)).toEqual(['2026-07-08T10:05:00Z', '2026-07-08T10:05:00.001Z']);
    const at = json<ProbeJson>(await probeIn(d, [id, '--command', 'echo c=3', '--at', '2026-07-09T00:00:00Z', '--json']));
    expect(at.tickets[0]!.facts[0]!.at).toBe('2026-07-09T00:00:00Z');
    // an instant before the latest parent moves 1 ms past it (§2.5): a fact never predates what it saw
    const early = json<ProbeJson>(await probeIn(d, [id, '--command', 'echo d=4', '--at', '2020-01-01T00:00:00Z', '--json']));
    expect(early.tickets[0]!.facts[0]!.at).toBe('2026-07-09T00:00:00.001Z');
  });

  it('two stores with the same log, output and instant write byte-identical events (T5), whenever they run', async () => {
    const a = await trackTicket(['repo=widget'], 'widget');
    const b = scratch.dir('tik-probe-');
    await tik(b, ['init']);
    copyFileSync(join(CONFORMANCE, 'processes/track.edn'), join(b, 'processes/track.edn'));
    mkdirSync(join(b, 'widget'));
    // the same log on both: b imports a's ticket
    expect((await tik(b, ['import', a.d])).code).toBe(0);
    const keys = scratch.dir('tik-keys-');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'tik-backend', '-f', join(keys, 'k')]);
    // TIK_KEY signs what the backend writes; Ed25519 is deterministic, so the sidecars agree too
    const probeAt = (d: string, now: string) =>
      probeIn(d, ['--command', 'echo gate=green; echo ref="abc123"; echo count=42', '--json'], { TIK_NOW: now, TIK_ACTOR: 'tik-backend', TIK_KEY: join(keys, 'k') });
    const ra = json<ProbeJson>(await probeAt(a.d, '2026-07-08T11:00:01Z'));
    const rb = json<ProbeJson>(await probeAt(b, '2026-07-08T11:00:59.999Z'));
    expect(ra.derived).toBe(3);
    expect(rb).toEqual(ra);
    const files = (d: string) => snapshot(join(d, 'tickets', a.id));
    expect(files(b)).toEqual(files(a.d));
    expect(eventFiles(a.d, a.id)).toHaveLength(5);
    expect(Object.keys(files(a.d)).filter((f) => f.includes('.sig.'))).toHaveLength(3);
  });

  it('stops a probe that hangs after --timeout: its process group is killed and the probe fails naming the ticket', async () => {
    const { d, id } = await trackTicket(['repo=widget'], 'widget');
    const before = snapshot(d);
    // a real hanging probe with a child of its own (a `sleep` it waits on) that would outlive a kill of the shell alone
    const hang = 'sleep 600 & echo $! > sleeper.pid; echo gate=green; wait';
    const r = await probeIn(d, [id, '--command', hang, '--timeout', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`probe/timeout: the probe of ${id} (widget) did not finish within 1 s`);
    expect(snapshot(d)).toEqual({ ...before, 'widget/sleeper.pid': expect.any(String) });
    expect(gone(Number(readFileSync(join(d, 'widget', 'sleeper.pid'), 'utf8').trim()))).toBe(true);
    // in a sweep it is one failed probe among others, named with its reason
    const swept = await probeIn(d, ['--command', hang, '--timeout', '0.5', '--json']);
    expect(swept.code).toBe(1);
    const sweep = JSON.parse(swept.stdout) as ProbeJson;
    expect(sweep).toMatchObject({ ran: 1, failed: 1, derived: 0 });
    expect(sweep.tickets[0]!.reason).toMatch(/did not finish within 0\.5 s/);
    const bad = await probeIn(d, [id, '--command', 'echo gate=green', '--timeout', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/cli\/usage: --timeout must be/);
  });
});

/** Whether a process has ended (absent, or a zombie nobody reaped yet); waits a little for the kill to land. */
function gone(pid: number): boolean {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const stat = `/proc/${pid}/stat`;
    const dead = !existsSync(stat) || / Z /.test(readFileSync(stat, 'utf8').replace(/^.*\)/, ' '));
    if (dead || Date.now() > deadline) return dead;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
}
