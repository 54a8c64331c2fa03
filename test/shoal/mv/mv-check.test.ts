import { spawnSync } from 'node:child_process';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerMvCheck } from '../../../src/shoal/cli/commands/mv-check.js';

/** Run `shoal mv check …` in process through the real commander registration. */
async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  let code = 0;
  const program = new Command('shoal').exitOverride();
  program.configureOutput({ writeErr: (s) => (err += s), writeOut: (s) => (out += s) });
  registerMvCheck(program, { stdout: (s) => (out += s), stderr: (s) => (err += s), exit: (c) => (code = c) });
  try {
    await program.parseAsync(['mv', 'check', ...args], { from: 'user' });
  } catch (e) {
    code = (e as { exitCode?: number }).exitCode === 0 ? 0 : 2;
  }
  return { code, out, err };
}

describe('shoal mv check', () => {
  it('admits deterministic SQL in the distributed tier: exit 0, JSON {ok, reason}', async () => {
    const r = await run('--sql', 'SELECT a, sum(b) AS s FROM t GROUP BY a', '--consistency', 'distributed', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ ok: true, reason: 'deterministic', consistency: 'distributed', deterministic: true });
  });

  it('rejects non-deterministic SQL in the distributed tier: exit 3 with the reason', async () => {
    const r = await run('--sql', 'SELECT a, now() AS t FROM t', '--consistency', 'distributed', '--json');
    expect(r.code).toBe(3);
    const body = JSON.parse(r.out) as { ok: boolean; reason: string };
    expect(body.ok).toBe(false);
    expect(body.reason).toContain('now() changes between runs');
  });

  it('admits non-deterministic SQL as shared (the default tier), noting why', async () => {
    const r = await run('--sql', 'SELECT a FROM t LIMIT 3', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ ok: true, consistency: 'shared', deterministic: false });
    expect((JSON.parse(r.out) as { reason: string }).reason).toContain('LIMIT');
  });

  it('fails closed on SQL it cannot parse, in both tiers', async () => {
    for (const tier of ['shared', 'distributed']) {
      const r = await run('--sql', 'SELEC a FROM t', '--consistency', tier, '--json');
      expect(r.code).toBe(3);
      expect(JSON.parse(r.out)).toMatchObject({ ok: false });
      expect((JSON.parse(r.out) as { reason: string }).reason).toMatch(/^view_sql cannot be parsed/);
    }
    expect((await run('--sql', '   ', '--json')).code).toBe(3);
  });

  it('human output goes to stdout when admitted and stderr when rejected', async () => {
    const ok = await run('--sql', 'SELECT a FROM t', '--consistency', 'distributed');
    expect(ok.out).toBe('admitted (distributed): deterministic\n');
    const no = await run('--sql', 'SELECT random() AS r FROM t', '--consistency', 'distributed');
    expect(no.code).toBe(3);
    expect(no.out).toBe('');
    expect(no.err).toMatch(/^rejected \(distributed\): .*random/);
  });

  it('an unknown tier or a missing --sql is a usage error (exit 2)', async () => {
    expect((await run('--sql', 'SELECT 1', '--consistency', 'local')).code).toBe(2);
    expect((await run('--consistency', 'shared')).code).toBe(2);
  });
});

describe('shoal mv check as a process (the compiled bin)', () => {
  const bin = (...args: string[]) => spawnSync(process.execPath, ['dist/src/shoal/cli/main.js', 'mv', 'check', ...args], { encoding: 'utf8' });

  it('exit 0 and {ok: true} when admitted; exit 3 and {ok: false, reason} when rejected; exit 2 on a usage error', () => {
    const ok = bin('--sql', 'SELECT a FROM t ORDER BY a LIMIT 3', '--consistency', 'distributed', '--json');
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, reason: 'deterministic' });
    const no = bin('--sql', 'SELECT a, b FROM t ORDER BY a LIMIT 3', '--consistency', 'distributed', '--json');
    expect(no.status).toBe(3);
    expect(JSON.parse(no.stdout)).toMatchObject({ ok: false, reason: expect.stringContaining('LIMIT_ORDER_NOT_TOTAL') });
    expect(bin('--sql', 'SELECT 1', '--consistency', 'everywhere').status).toBe(2);
  }, 120_000); // three cold starts of the CLI: slow on a loaded machine
});
