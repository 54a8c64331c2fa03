import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, json, supportStore, tik } from './harness.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});

interface Row {
  ticket: string;
  title: string | null;
  current: string[];
  settled: boolean;
}

async function open(dir: string, title: string, env: Record<string, string> = {}): Promise<string> {
  const r = await tik(dir, ['new', 'support-request', '--title', title], env);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

const ids = (rows: Row[]): string[] => rows.map((r) => r.ticket).sort();

/** Three tickets: one triaged with high severity, one disputed by the customer, one settled. */
async function board(): Promise<{ d: string; high: string; disputed: string; done: string; plain: string }> {
  const d = await supportStore();
  dirs.push(d);
  const high = await open(d, 'Login fails on Firefox');
  const disputed = await open(d, 'Export is slow');
  const done = await open(d, 'Typo on the pricing page');
  const plain = await open(d, 'Nothing yet');
  expect((await tik(d, ['set', high, 'category=technical', 'severity=high'])).code).toBe(0);
  expect((await tik(d, ['set', disputed, 'category=technical', 'severity=low'])).code).toBe(0);
  expect((await tik(d, ['--actor', 'customer', 'dispute', disputed, 'severity', '--reason', 'it blocks us'])).code).toBe(0);
  writeFileSync(join(d, 'crash.sh'), 'x');
  await tik(d, ['set', done, 'category=technical', 'severity=high', 'resolution.ref=abcdef123456']);
  await tik(d, ['attach', done, 'crash.sh']);
  await tik(d, ['--actor', 'customer', 'set', done, 'customer.ack=true']);
  return { d, high, disputed, done, plain };
}

describe('tik ls --where and tik search', () => {
  it('selects by stage, fact, actor, dispute and text; settled tickets only with --all', async () => {
    const { d, high, disputed, done, plain } = await board();
    const ls = async (where: string, all = false): Promise<string[]> => {
      const r = await tik(d, ['ls', ...(all ? ['--all'] : []), '--where', where, '--json']);
      expect(r.code, r.stderr).toBe(0);
      return ids(json<Row[]>(r));
    };
    expect(await ls('fact:severity=:high')).toEqual([high]);
    expect(await ls('fact:severity=high', true)).toEqual([done, high].sort());
    // a disputed fact is not present (the selector reads the effective facts, as guards do)
    expect(await ls('fact:severity')).toEqual([high]);
    expect(await ls('not fact:severity')).toEqual([disputed, plain].sort());
    expect(await ls('disputed')).toEqual([disputed]);
    expect(await ls('fact:category=technical and not disputed')).toEqual([high]);
    expect(await ls('actor=customer', true)).toEqual([disputed, done].sort());
    expect(await ls('stage=:closed', true)).toEqual([done]);
    expect(await ls('stage=closed')).toEqual([]); // settled: hidden without --all
    expect(await ls('~firefox')).toEqual([high]);
    expect(await ls('FIREFOX')).toEqual([high]);
    expect(await ls('~abcdef123456', true)).toEqual([done]); // facts are in the haystack
    expect(await ls('')).toEqual([disputed, high, plain].sort());
    const text = await tik(d, ['ls', '--where', 'stage=:nope']);
    expect(text.stdout).toContain('(no matching tickets)');
  });

  it('search finds every word across all tickets, settled ones included', async () => {
    const { d, high, done } = await board();
    const r = await tik(d, ['search', 'login', 'FIREFOX', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(ids(json<Row[]>(r))).toEqual([high]);
    expect(ids(json<Row[]>(await tik(d, ['search', 'pricing', '--json'])))).toEqual([done]);
    expect(ids(json<Row[]>(await tik(d, ['search', 'login', 'pricing', '--json'])))).toEqual([]);
    expect((await tik(d, ['search', 'typo'])).stdout).toMatch(/Typo on the pricing page/);
  });

  it('unsigned reads the signature sidecars', async () => {
    const d = await supportStore();
    dirs.push(d);
    const key = join(d, 'seb');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'seb', '-f', key]);
    const signed = await open(d, 'signed one', { TIK_KEY: key });
    const bare = await open(d, 'not signed');
    expect(ids(json<Row[]>(await tik(d, ['ls', '--where', 'unsigned', '--json'])))).toEqual([bare]);
    expect(ids(json<Row[]>(await tik(d, ['ls', '--where', 'not unsigned', '--json'])))).toEqual([signed]);
    // one unsigned event is enough
    expect((await tik(d, ['set', signed, 'category=technical'])).code).toBe(0);
    expect(ids(json<Row[]>(await tik(d, ['ls', '--where', 'unsigned', '--json'])))).toEqual([bare, signed].sort());
  });

  it('a bad selector is a usage error (exit 2) that names the term, before any read', async () => {
    const { d } = await board();
    for (const bad of ['bogus=1', 'stage=:x and not', 'a:b']) {
      const r = await tik(d, ['ls', '--where', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toMatch(/select\/bad-term/);
      expect(r.stdout).toBe('');
    }
  });
});
