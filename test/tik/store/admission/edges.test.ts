import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMISSION_LIMITS, readFileBounded } from '../../../../src/tik/store/admission/index.js';
import { cleanup, json, snapshot, supportStore, tempDir, tik } from '../../cli/harness.js';

// Issue 13: `tik import` followed symlinks (it copied /etc/passwd into the store), and `tik
// attach` of an endless file grew without bound.

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

describe('import never follows links', () => {
  it('a tree holding a symlink (to /etc/passwd, as a blob) is refused and nothing is written', async () => {
    const src = await supportStore();
    const target = await supportStore();
    dirs.push(src, target);
    const { ticket } = json<{ ticket: string }>(await tik(src, ['new', 'support-request', '--json']));
    const tree = join(tempDir(), 'tree');
    dirs.push(tree);
    expect((await tik(src, ['export', tree])).code).toBe(0);
    mkdirSync(join(tree, 'tickets', ticket, 'blobs'), { recursive: true });
    symlinkSync('/etc/passwd', join(tree, 'tickets', ticket, 'blobs', 'sha256-' + 'a'.repeat(64)));
    const before = snapshot(target);
    const r = await tik(target, ['import', tree]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/import\/link: .*is a symbolic link; import never follows links/);
    expect(snapshot(target)).toEqual(before);
  });

  it('a FIFO in the tree is refused as a special file', async () => {
    const src = await supportStore();
    const target = await supportStore();
    dirs.push(src, target);
    const tree = join(tempDir(), 'tree');
    dirs.push(tree);
    await tik(src, ['new', 'support-request']);
    expect((await tik(src, ['export', tree])).code).toBe(0);
    execFileSync('mkfifo', [join(tree, 'processes', 'pipe.edn')]);
    const r = await tik(target, ['import', tree]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/import\/special-file/);
  });
});

describe('attach is bounded while reading', () => {
  it('an endless file (/dev/zero) stops at the blob limit with a typed refusal', async () => {
    let err: unknown;
    try {
      await readFileBounded('/dev/zero', 1 << 20, '/dev/zero');
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'admission/too-large' });
  });

  it('tik attach /dev/zero is refused and writes nothing', async () => {
    const root = await supportStore();
    dirs.push(root);
    const { ticket } = json<{ ticket: string }>(await tik(root, ['new', 'support-request', '--json']));
    const r = await tik(root, ['attach', ticket, '/dev/zero', '--as', 'repro/zero']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/admission\/too-large: .* larger than 256 MiB/);
    expect(existsSync(join(root, 'tickets', ticket, 'blobs'))).toBe(false);
    expect(readdirSync(join(root, 'tickets', ticket, 'events')).filter((n) => n.endsWith('.edn'))).toHaveLength(1);
    expect(ADMISSION_LIMITS.blob).toBe(256 << 20);
  }, 60_000);
});
