import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, supportStore, tik } from './harness.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

describe('actor identities are names, never patterns', () => {
  it('tik actor add refuses a wildcard or negated principal, and adds a plain name', async () => {
    const d = await supportStore();
    dirs.push(d);
    const key = join(d, 'k');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'k', '-f', key]);
    for (const name of ['*', 'a*', '?', 'se?', '!seb', 'seb,mallory']) {
      const r = await tik(d, ['actor', 'add', name, `${key}.pub`]);
      expect(r.code, name).toBe(1);
      expect(r.stderr, name).toMatch(/^tik: store\/bad-actor-name: /);
    }
    expect((await tik(d, ['actor', 'add', 'seb', `${key}.pub`])).code).toBe(0);
  });

  it('a write refuses an actor that is a pattern before anything is written', async () => {
    const d = await supportStore();
    dirs.push(d);
    const r = await tik(d, ['--actor', '*', 'new', 'support-request']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tik: cli\/usage: actor "\*" is not a usable identity/);
    expect((await tik(d, ['ls', '--json'])).stdout).toBe('[]\n');
  });
});
