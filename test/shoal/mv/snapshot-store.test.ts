import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isCodedError } from '../../../src/core/errors.js';
import { DEFAULT_STORE_DIR, SnapshotStore, mvDirectoryName, storeDirectory } from '../../../src/shoal/mv/snapshot-store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'shoal-snap-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    return isCodedError(e) ? e.code : 'not coded';
  }
  return undefined;
};

describe('storeDirectory', () => {
  it('defaults to shoal-mv beside the config, accepts file URLs and paths, refuses database URLs', () => {
    expect(storeDirectory(undefined, '/etc/shoal')).toBe(resolve('/etc/shoal', DEFAULT_STORE_DIR));
    expect(storeDirectory('file:///srv/mv', '/etc/shoal')).toBe('/srv/mv');
    expect(storeDirectory(pathToFileURL('/srv/a b').href, '/x')).toBe('/srv/a b');
    expect(storeDirectory('/abs/mv', '/etc/shoal')).toBe('/abs/mv');
    expect(storeDirectory('rel/mv', '/etc/shoal')).toBe('/etc/shoal/rel/mv');
    expect(codeOf(() => storeDirectory('postgresql://h/db', '/x'))).toBe('MV_STORE_URL');
    expect(codeOf(() => storeDirectory('s3://bucket/mv', '/x'))).toBe('MV_STORE_URL');
  });
});

describe('snapshot ids and paths', () => {
  it('law: a snapshot id never resolves outside the store (any id is either refused or inside)', async () => {
    const store = await SnapshotStore.open(dir);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constantFrom('../x', 'a/..', './b', 'a/../../etc', '/etc/passwd', 'a/b/c', '..', 'a/.')), (id) => {
        let path: string | undefined;
        try {
          path = store.pathOf(id);
        } catch (e) {
          expect(isCodedError(e) && e.code === 'MV_SNAPSHOT_ID').toBe(true);
          return;
        }
        expect(path.startsWith(dir + sep)).toBe(true);
        expect(path.slice(dir.length + 1).split(sep)).toHaveLength(2);
      }),
      { numRuns: 500 },
    );
  });

  it('law: fresh ids are valid, distinct and live under the MV directory', async () => {
    const store = await SnapshotStore.open(dir);
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (mv) => {
        const a = store.newSnapshotId(mv);
        const b = store.newSnapshotId(mv);
        expect(a).not.toBe(b);
        expect(a.startsWith(`${mvDirectoryName(mv)}/`)).toBe(true);
        expect(store.pathOf(a).startsWith(join(dir, mvDirectoryName(mv)))).toBe(true);
      }),
    );
  });
});

describe('writing snapshots', () => {
  it('a snapshot appears under its final name only once written completely', async () => {
    const store = await SnapshotStore.open(join(dir, 'store'));
    const id = store.newSnapshotId('sales.by_region');
    let seenDuringWrite = true;
    const path = await store.write(id, async (staging) => {
      writeFileSync(staging, 'PAR1');
      seenDuringWrite = await store.exists(id);
    });
    expect(seenDuringWrite).toBe(false);
    expect(path).toBe(store.pathOf(id));
    expect(await store.exists(id)).toBe(true);
    expect(readdirSync(join(dir, 'store', 'sales.by_region'))).toEqual([`${id.split('/')[1]}.parquet`]);
  });

  it('a failed write leaves neither the snapshot nor its staging file', async () => {
    const store = await SnapshotStore.open(dir);
    const id = store.newSnapshotId('m');
    await expect(
      store.write(id, async (staging) => {
        writeFileSync(staging, 'half');
        throw new Error('engine failed');
      }),
    ).rejects.toThrow('engine failed');
    expect(await store.exists(id)).toBe(false);
    expect(readdirSync(join(dir, 'm'))).toEqual([]);
  });

  it('an unwritable store is a clear error', async () => {
    writeFileSync(join(dir, 'file'), 'x');
    const store = await SnapshotStore.open(join(dir, 'file'));
    await expect(store.write(store.newSnapshotId('m'), async () => undefined)).rejects.toMatchObject({ code: 'MV_STORE_UNAVAILABLE' });
  });

  it('discard removes an unpublished snapshot', async () => {
    const store = await SnapshotStore.open(dir);
    const id = store.newSnapshotId('m');
    await store.write(id, async (p) => writeFileSync(p, 'x'));
    await store.discard(id);
    expect(await store.exists(id)).toBe(false);
  });
});

describe('garbage collection', () => {
  const MIN = 60_000;
  async function setup() {
    let now = 1_000 * MIN;
    const store = await SnapshotStore.open(dir, { now: () => now });
    const make = async (age: number) => {
      const id = store.newSnapshotId('m');
      const path = await store.write(id, async (p) => writeFileSync(p, 'x'));
      const t = (now - age) / 1000;
      utimesSync(path, t, t);
      return id;
    };
    return { store, make, advance: (ms: number) => (now += ms) };
  }

  it('never removes a referenced snapshot, however old', async () => {
    const { store, make, advance } = await setup();
    const old = await make(100 * MIN);
    for (let i = 0; i < 3; i++) {
      advance(20 * MIN);
      expect((await store.collectGarbage({ referenced: new Set([old]), graceMs: MIN })).removed).toEqual([]);
    }
    expect(await store.exists(old)).toBe(true);
  });

  it('keeps a long-lived snapshot for the grace period after it is superseded (cube-js/cube#8546)', async () => {
    const { store, make, advance } = await setup();
    const old = await make(100 * MIN); // published long ago
    const next = await make(0);
    await store.collectGarbage({ referenced: new Set([old]), graceMs: 10 * MIN });
    // superseded now: unreferenced, and its file is old, but a reader may still hold it
    expect((await store.collectGarbage({ referenced: new Set([next]), graceMs: 10 * MIN })).removed).toEqual([]);
    advance(9 * MIN);
    expect((await store.collectGarbage({ referenced: new Set([next]), graceMs: 10 * MIN })).removed).toEqual([]);
    advance(2 * MIN);
    expect((await store.collectGarbage({ referenced: new Set([next]), graceMs: 10 * MIN })).removed).toEqual([old]);
    expect(await store.exists(next)).toBe(true);
  });

  it('a young unpublished snapshot (a commit in flight) is kept; an abandoned staging file goes after the grace', async () => {
    const { store, make, advance } = await setup();
    const young = await make(0);
    writeFileSync(join(dir, 'm', '.staging-dead.parquet'), 'half');
    utimesSync(join(dir, 'm', '.staging-dead.parquet'), (1_000 * MIN) / 1000, (1_000 * MIN) / 1000);
    expect((await store.collectGarbage({ referenced: new Set(), graceMs: 5 * MIN })).removed).toEqual([]);
    advance(6 * MIN);
    const r = await store.collectGarbage({ referenced: new Set(), graceMs: 5 * MIN });
    expect(new Set(r.removed)).toEqual(new Set([young, 'm/.staging-dead']));
    expect(existsSync(join(dir, 'm', '.staging-dead.parquet'))).toBe(false);
  });

  it('law: whatever the schedule, a file is removed only when unreferenced, older than the grace and seen unreferenced for the grace', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ refs: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }), step: fc.integer({ min: 0, max: 4 * MIN }) }), { minLength: 1, maxLength: 8 }),
        async (schedule) => {
          rmSync(dir, { recursive: true, force: true });
          const { store, make, advance } = await setup();
          const ids = [await make(0), await make(3 * MIN), await make(30 * MIN)];
          const firstUnref = new Map<string, number>();
          let t = 0;
          for (const { refs, step } of schedule) {
            advance(step);
            t += step;
            const referenced = new Set(ids.filter((_, i) => refs[i]));
            for (const id of ids) {
              if (referenced.has(id)) firstUnref.delete(id);
              else if (!firstUnref.has(id)) firstUnref.set(id, t);
            }
            const { removed } = await store.collectGarbage({ referenced, graceMs: 5 * MIN });
            for (const id of removed) {
              expect(referenced.has(id)).toBe(false);
              expect(t - firstUnref.get(id)!).toBeGreaterThanOrEqual(5 * MIN);
              ids.splice(ids.indexOf(id), 1);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
