/**
 * The CLI on a PostgreSQL store (`--root postgresql://…?schema=…`): every verb works on it, its
 * derivations equal the file store's, and `store migrate` file → postgres → file keeps every byte.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { service } from '../../../support/service.js';
import { cleanup, snapshot, tempDir, tik } from '../../../tik/cli/harness.js';
import { addSupportProcess, derivations, writeScenario } from '../../../tik/store/backend-scenario.js';
import { PostgresStore } from '../../../../src/tik/store/postgres/postgres-store.js';

const postgres = service('postgres');

const dirs: string[] = [];
const schemas: string[] = [];
afterEach(async () => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
  while (schemas.length > 0) {
    const s = await PostgresStore.open(schemas.pop()!);
    await s.drop();
    await s.close();
  }
});
function dir(): string {
  const d = tempDir('tik-pg-cli-');
  dirs.push(d);
  return d;
}
let n = 0;
function pgRoot(): string {
  const u = new URL(postgres.url!);
  u.searchParams.set('schema', `tik_cli_${process.pid}_${++n}`);
  schemas.push(u.toString());
  return u.toString();
}

async function run(cwd: string, args: readonly string[]): Promise<string> {
  const r = await tik(cwd, args);
  expect(r.stderr, `tik ${args.join(' ')}`).toBe('');
  expect(r.code, `tik ${args.join(' ')}`).toBe(0);
  return r.stdout;
}

async function fileStoreWithScenario(): Promise<[string, string[]]> {
  const root = dir();
  await run(root, ['init']);
  addSupportProcess(root);
  return [root, await writeScenario(root, root)];
}

describe.skipIf(postgres.skip)('tik on a PostgreSQL store', () => {
  it('every verb works on it, and derivations equal the file store it was imported from', async () => {
    const [fileRoot, tickets] = await fileStoreWithScenario();
    const tree = join(dir(), 'tree');
    await run(fileRoot, ['export', tree]);
    const pg = pgRoot();
    const cwd = dir();
    expect(await run(cwd, ['--root', pg, 'import', tree])).toMatch(/^imported 9 new events/);
    expect(await derivations(cwd, pg, tickets)).toEqual(await derivations(fileRoot, fileRoot, tickets));
    // writes through the CLI on PostgreSQL, then the same writes on the file store: same derivation
    const more = await writeScenario(cwd, pg);
    expect(JSON.parse(await run(cwd, ['--root', pg, 'ls', '--all', '--json']))).toHaveLength(4);
    expect(await run(cwd, ['--root', pg, 'verify'])).toMatch(/4 tickets verified, 0 failed/);
    const status = JSON.parse(await run(cwd, ['--root', pg, 'status', more[0]!, '--json'])) as { facts: Record<string, { status: string }> };
    expect(Object.values(status.facts).map((f) => f.status)).toContain('disputed');
    expect(await run(cwd, ['--root', pg, 'import', tree])).toMatch(/^imported 0 new events/);
  });

  it('store migrate file → postgres → file keeps every byte and every derivation', async () => {
    const [root, tickets] = await fileStoreWithScenario();
    const keep = (r: string) => Object.fromEntries(Object.entries(snapshot(r)).filter(([p]) => p !== 'crash.sh'));
    const before = keep(root);
    const derived = await derivations(root, root, tickets);
    const pg = pgRoot();
    expect(await run(root, ['store', 'migrate', '--to', 'postgres', '--url', pg])).toMatch(/^migrated 9 events/);
    expect(existsSync(join(root, 'tickets'))).toBe(false);
    expect(await derivations(root, pg, tickets)).toEqual(derived);
    const back = dir();
    await run(root, ['--root', pg, 'store', 'migrate', '--to', 'file', '--dir', back]);
    expect(keep(back)).toEqual(before);
    expect(await derivations(back, back, tickets)).toEqual(derived);
    // the PostgreSQL source was removed (its schema dropped): opening it again finds it empty
    const s = await PostgresStore.open(pg);
    expect(await s.ticketIds()).toEqual([]);
    await s.close();
  });

  it('a migration to PostgreSQL that fails leaves the source whole and drops what it created', async () => {
    const [root, tickets] = await fileStoreWithScenario();
    const events = join(root, 'tickets', tickets[0]!, 'events');
    const victim = readdirSync(events).find((f) => f.endsWith('.edn'))!;
    writeFileSync(join(events, victim), `${readFileSync(join(events, victim), 'utf8')}\n`);
    const before = snapshot(root);
    const pg = pgRoot();
    const r = await tik(root, ['store', 'migrate', '--to', 'postgres', '--url', pg]);
    expect(r.code).toBe(1);
    expect(snapshot(root)).toEqual(before);
    const s = await PostgresStore.open(pg);
    expect(await s.ticketIds()).toEqual([]);
    await s.close();
  });

  it('the compiled tik exits by itself after a command on a PostgreSQL store (its connections are closed)', async () => {
    const [fileRoot, tickets] = await fileStoreWithScenario();
    const pg = pgRoot();
    await run(fileRoot, ['--root', pg, 'import', fileRoot]);
    const r = spawnSync(process.execPath, [resolve(process.cwd(), 'dist/src/tik/cli/main.js'), 'status', tickets[0]!, '--json'], {
      cwd: fileRoot,
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH, HOME: fileRoot, TIK_ROOT: pg, TIK_NOW: '2026-07-08T10:00:00Z', TIK_ACTOR: 'seb' },
    });
    expect(r.error).toBeUndefined(); // not killed by the timeout
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ticket: tickets[0] });
  });
});
