/**
 * Several real processes append the same events to one SQLite file and one PostgreSQL schema at
 * once: every event is stored exactly once, and exactly one append of each reports it as new.
 * Uses the compiled stores (dist/), as the CLI does.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { service } from '../../../support/service.js';
import { closeStore, initSqliteStore, openStore } from '../../../../src/tik/store/open-store.js';
import { PostgresStore } from '../../../../src/tik/store/postgres/postgres-store.js';
import { eventBytesFor, idOf } from '../../../tik/store/event-store-contract.js';

const postgres = service('postgres');
const T = '018f2f6e-7c1a-7000-8000-000000000001';
const N = 60;
const PROCESSES = 3;

const temps: string[] = [];
afterEach(() => {
  while (temps.length > 0) rmSync(temps.pop()!, { recursive: true, force: true });
});

/** A child process that opens the store at `root` and appends events 0..N-1; prints how many were new. */
function appender(root: string): Promise<number> {
  const store = resolve(process.cwd(), 'dist/src/tik/store/index.js');
  const script = `
    const { openStore, closeStore } = await import(${JSON.stringify(store)});
    const { createHash } = await import('node:crypto');
    const s = await openStore(process.argv[1]);
    let fresh = 0;
    const T = ${JSON.stringify(T)};
    for (let n = 0; n < ${N}; n++) {
      const b = Buffer.from('{:event/actor "a" :event/at #inst "2026-07-08T10:00:0' + (n % 10) + 'Z" :event/body {:n ' + n + '} :event/parents #{} :event/ticket #uuid "' + T + '" :event/type :fact/assert}');
      if (await s.append(T, 'sha256-' + createHash('sha256').update(b).digest('hex'), b)) fresh++;
    }
    await closeStore(s);
    process.stdout.write(String(fresh));`;
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, root], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) res(Number(out));
      else rej(new Error(`appender exited ${code}: ${err}`));
    });
  });
}

async function expectEachOnce(root: string): Promise<void> {
  const fresh = await Promise.all(Array.from({ length: PROCESSES }, () => appender(root)));
  expect(fresh.reduce((a, b) => a + b, 0)).toBe(N);
  const s = await openStore(root);
  try {
    const got = await s.events(T);
    expect(got.map((e) => e.id).sort()).toEqual(Array.from({ length: N }, (_, n) => idOf(eventBytesFor(n))).sort());
    for (const e of got) expect(idOf(e.bytes)).toBe(e.id);
  } finally {
    await closeStore(s);
  }
}

describe('concurrent appends from several processes', () => {
  it('one SQLite file: each event stored once, reported new once', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tik-sqlite-procs-'));
    temps.push(root);
    await (await initSqliteStore(root)).close();
    await expectEachOnce(root);
  });

  it.skipIf(postgres.skip)('one PostgreSQL schema: each event stored once, reported new once', async () => {
    const u = new URL(postgres.url!);
    u.searchParams.set('schema', `tik_procs_${process.pid}`);
    try {
      await expectEachOnce(u.toString());
    } finally {
      const s = await PostgresStore.open(u.toString());
      await s.drop();
      await s.close();
    }
  });
});
