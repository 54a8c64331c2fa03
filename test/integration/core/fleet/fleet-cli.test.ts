/**
 * `shoal fleet` and `tik fleet` refuse hostile input before starting anything: a fleet size
 * outside 1–16 is a usage error (exit 2), and status or down of a directory without a fleet says
 * so (exit 1).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { distBin } from '../../../support/processes.js';

const run = (system: 'shoal' | 'tik', ...args: string[]): Promise<{ code: number; stderr: string }> =>
  new Promise((resolve) => execFile(process.execPath, [distBin(system), ...args], { encoding: 'utf8' }, (e, _out, stderr) => resolve({ code: e ? Number(e.code) : 0, stderr })));

describe('fleet commands refuse hostile input', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a fleet size outside 1–16 with a usage error, starting nothing', async () => {
    for (const n of ['0', '17', '-3', '2.5', 'many']) {
      expect((await run('shoal', 'fleet', 'up', '-n', n, '--config', join(dir, 'none.yaml'), '--dir', join(dir, 's'))).code).toBe(2);
      expect((await run('tik', '--root', dir, 'fleet', 'up', '-n', n, '--dir', join(dir, 't'))).code).toBe(2);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('says there is no fleet in a directory without one', async () => {
    for (const system of ['shoal', 'tik'] as const) {
      for (const verb of ['status', 'down']) {
        const r = await run(system, 'fleet', verb, '--dir', join(dir, 'nothing'));
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/FLEET_NOT_FOUND/);
      }
    }
  });
});
