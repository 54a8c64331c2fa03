import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRegistry } from '../../../src/shoal/registry/open-registry.js';
import type { Registry } from '../../../src/shoal/registry/registry.js';
import { watchEpoch } from '../../../src/shoal/registry/watch-epoch.js';
import { ManualTimer } from './manual-timer.js';

describe('epoch watcher over two handles on one SQLite file', () => {
  let dir: string;
  let a: Registry;
  let b: Registry;
  let timer: ManualTimer;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-watch-'));
    a = await openRegistry('sqlite:///registry.db', { baseDir: dir });
    b = await openRegistry('sqlite:///registry.db', { baseDir: dir });
    timer = new ManualTimer();
  });

  afterEach(async () => {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('polls every 2 s by default and reports each change once, with the previous epoch', async () => {
    const calls: [number, number][] = [];
    const w = await watchEpoch(b, { timer }, (e, prev) => void calls.push([e, prev]));
    expect(timer.scheduled).toEqual([2000]);
    await a.registerDomain({ id: 'x' });
    await a.registerDomain({ id: 'y' });
    timer.fire();
    await w.idle();
    expect(calls).toEqual([[2, 0]]);
    expect(w.seen).toBe(2);
    timer.fire();
    await w.idle();
    expect(calls).toEqual([[2, 0]]);
    await w.stop();
  });

  it('starts from the epoch the caller built its state at, so a change in between is not missed', async () => {
    const built = (await b.snapshot()).epoch;
    await a.registerDomain({ id: 'between' });
    const calls: number[] = [];
    const w = await watchEpoch(b, { timer, initialEpoch: built }, (e) => void calls.push(e));
    timer.fire();
    await w.idle();
    expect(calls).toEqual([1]);
    await w.stop();
  });

  it('a failing onChange is reported and retried at the next poll (the change is not lost)', async () => {
    const errors: unknown[] = [];
    let attempts = 0;
    const w = await watchEpoch(b, { timer, onError: (e) => errors.push(e) }, () => {
      attempts++;
      if (attempts === 1) throw new Error('engine reconcile failed');
    });
    await a.registerDomain({ id: 'x' });
    timer.fire();
    await w.idle();
    expect(errors).toHaveLength(1);
    expect(w.seen).toBe(0);
    timer.fire();
    await w.idle();
    expect(attempts).toBe(2);
    expect(w.seen).toBe(1);
    await w.stop();
  });

  it('concurrent poll requests coalesce: onChange never runs twice at once', async () => {
    let running = 0;
    let maxRunning = 0;
    const w = await watchEpoch(b, { timer }, async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise((r) => setImmediate(r));
      running--;
    });
    await a.registerDomain({ id: 'x' });
    await Promise.all([w.poll(), w.poll(), w.poll()]);
    await a.registerDomain({ id: 'y' });
    await Promise.all([w.poll(), w.poll()]);
    expect(maxRunning).toBe(1);
    expect(w.seen).toBe(2);
    await w.stop();
  });

  it('stop cancels the timer and later polls do nothing', async () => {
    const calls: number[] = [];
    const w = await watchEpoch(b, { timer }, (e) => void calls.push(e));
    await w.stop();
    expect(timer.scheduled).toEqual([]);
    await a.registerDomain({ id: 'x' });
    await w.poll();
    expect(calls).toEqual([]);
  });

  it('a registry that cannot be read is reported and polling continues', async () => {
    const errors: unknown[] = [];
    const w = await watchEpoch(b, { timer, onError: (e) => errors.push(e) }, () => undefined);
    await b.close();
    timer.fire();
    await w.idle();
    expect(errors).toHaveLength(1);
    expect(timer.scheduled).toEqual([2000]);
    await w.stop();
  });
});
