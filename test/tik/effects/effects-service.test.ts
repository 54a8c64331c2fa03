import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isCodedError } from '../../../src/core/errors.js';
import { Instant } from '../../../src/tik/edn/index.js';
import { defaultEffectsFile, effectKey, effectsOptionsFromEnv } from '../../../src/tik/effects/index.js';
import { buildTikServer } from '../../../src/tik/server/index.js';
import { closeStore, MemoryStore, openStore } from '../../../src/tik/store/index.js';
import { T0, cleanup, tempDir, tik } from '../cli/harness.js';
import { deployStore, newDeploy, startReceiver } from './effects-fixture.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

describe('effects in tik serve', () => {
  it('options come from TIK_EFFECTS_* with documented defaults; a bad number is a usage error naming the variable', () => {
    expect(effectsOptionsFromEnv('sqlite:///e.db', '/s/effects.edn', {})).toEqual({
      db: 'sqlite:///e.db',
      file: '/s/effects.edn',
      intervalMs: 5000,
      leaseMs: 30_000,
      maxAttempts: 5,
      backoff: { baseMs: 1000, maxMs: 300_000 },
      timeoutMs: 10_000,
    });
    const o = effectsOptionsFromEnv('x', 'f', { TIK_EFFECTS_FILE: 'hooks.edn', TIK_EFFECTS_INTERVAL_MS: '200', TIK_EFFECTS_LEASE_MS: '1500', TIK_EFFECTS_MAX_ATTEMPTS: '2', TIK_EFFECTS_BACKOFF_MS: '50' });
    expect(o).toMatchObject({ file: 'hooks.edn', intervalMs: 200, leaseMs: 1500, maxAttempts: 2, backoff: { baseMs: 50 } });
    for (const bad of ['0', '-1', '1.5', 'soon']) {
      try {
        effectsOptionsFromEnv('x', 'f', { TIK_EFFECTS_LEASE_MS: bad });
        throw new Error('accepted');
      } catch (e) {
        expect(isCodedError(e) && e.code === 'cli/usage' && e.where === 'TIK_EFFECTS_LEASE_MS').toBe(true);
      }
    }
  });

  it('GET /effects shows the pipelines, counts and deliveries from the shared ledger', async () => {
    const dir = await deployStore();
    dirs.push(dir);
    const t = await newDeploy(dir);
    const receiver = await startReceiver();
    writeFileSync(join(dir, 'effects.edn'), `{:effects [{:stage :requested :url "${receiver.url}/hook"}]}`);
    const store = await openStore(dir);
    const server = await buildTikServer({
      root: dir,
      store,
      effects: { ...effectsOptionsFromEnv('sqlite:///effects.db', join(dir, 'effects.edn'), {}), writer: 'replica-1', now: () => new Instant(Date.parse(T0)) },
    });
    try {
      expect(server.effects).toBeDefined();
      await server.effects!.runner.round();
      const res = await server.app.inject({ method: 'GET', url: '/effects' });
      expect(res.statusCode).toBe(200);
      const body = res.json<{ writer: string; rounds: number; counts: Record<string, number>; pipelines: { pipeline: string; live: boolean }[]; deliveries: { key: string; state: string; attempts: number; ticket: string }[] }>();
      expect(body.writer).toBe('replica-1');
      expect(body.rounds).toBe(1);
      expect(body.counts).toEqual({ pending: 0, delivered: 1, dead: 0 });
      expect(body.pipelines).toEqual([expect.objectContaining({ pipeline: 'default', live: false })]);
      expect(body.deliveries).toEqual([
        expect.objectContaining({ key: effectKey(t, ':requested', { type: 'webhook', url: `${receiver.url}/hook` }), state: 'delivered', attempts: 1, ticket: t }),
      ]);
      expect((await server.app.inject({ method: 'GET', url: '/effects?state=dead' })).json<{ deliveries: unknown[] }>().deliveries).toEqual([]);
      const bad = await server.app.inject({ method: 'GET', url: '/effects?state=bogus' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json<{ error: { code: string } }>().error.code).toBe('server/bad-request');
      expect(receiver.received).toHaveLength(1);
    } finally {
      await server.close();
      await closeStore(store);
      await receiver.close();
    }
  });

  it('tik serve --effects-db refuses a bad effects.edn before serving, naming the file and key path', async () => {
    const dir = await deployStore();
    dirs.push(dir);
    writeFileSync(join(dir, 'effects.edn'), '{:effects [{:stage :done :url "gopher://x"}]}');
    const r = await tik(dir, ['serve', '--port', '0', '--effects-db', 'sqlite:///effects.db']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('effects/invalid');
    expect(r.stderr).toContain(`${join(dir, 'effects.edn')} :effects 0 :url`);
    expect(r.stderr).toMatch(/hint:/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('tik serve --effects-db without an effects.edn says where it looked', async () => {
    const dir = await deployStore();
    dirs.push(dir);
    const r = await tik(dir, ['serve', '--port', '0', '--effects-db', 'sqlite:///effects.db']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('effects/no-file');
    expect(r.stderr).toContain(join(dir, 'effects.edn'));
  });
  it('effects.edn is looked for in the store directory: the root, .tik for a hidden store, beside tik.db; else the working directory', async () => {
    const plain = await deployStore();
    const sqlite = await deployStore({ sqlite: true });
    const hidden = tempDir('tik-effects-hidden-');
    dirs.push(plain, sqlite, hidden);
    expect((await tik(hidden, ['init', '--hidden'])).code).toBe(0);
    for (const [dir, expected] of [
      [plain, join(plain, 'effects.edn')],
      [sqlite, join(sqlite, 'effects.edn')],
      [hidden, join(hidden, '.tik', 'effects.edn')],
    ] as const) {
      const s = await openStore(dir);
      try {
        expect(defaultEffectsFile(s, '/elsewhere')).toBe(expected);
      } finally {
        await closeStore(s);
      }
    }
    expect(defaultEffectsFile(new MemoryStore(), '/work/dir')).toBe('/work/dir/effects.edn');
  });
});
