import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderRootHelp } from '../../../src/tik/cli/root-help.js';
import { cleanup, supportStore, tikDist } from './harness.js';

// The compiled bin (what package.json's "bin" points at), as users and outside checks run it.

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

describe('the compiled tik command', () => {
  it('--help lists every verb and the conventions', () => {
    const r = tikDist(process.cwd(), ['--help']);
    expect(r.code).toBe(0);
    for (const verb of ['init', 'new', 'set', 'retract', 'dispute', 'attach', 'comment', 'attest', 'recur', 'status', 'explain', 'log', 'diff', 'next', 'ls', 'lint', 'test', 'verify', 'sign', 'process', 'actor']) {
      expect(r.stdout).toMatch(new RegExp(`^  ${verb}\\b`, 'm'));
    }
    expect(r.stdout).toMatch(/--root/);
    expect(r.stdout).toMatch(/TIK_NOW/);
    // printed by main.ts without commander: the help root-help.test.ts keeps equal to commander's
    expect(r.stdout).toBe(renderRootHelp(undefined));
    expect(tikDist(process.cwd(), ['-h']).stdout).toBe(r.stdout);
  });

  it('exit codes: 2 for usage errors, 1 for failures, never a stack trace', () => {
    const unknownFlag = tikDist(process.cwd(), ['ls', '--nope']);
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toMatch(/unknown option '--nope'/);
    const noVerb = tikDist(process.cwd(), []);
    expect(noVerb.code).toBe(2);
    expect(noVerb.stderr).toMatch(/Usage: tik/);
    expect(noVerb.stderr).toBe(renderRootHelp(undefined));
    expect(tikDist(process.cwd(), ['--version']).code).toBe(0);
    expect(tikDist(process.cwd(), ['status', '--help']).code).toBe(0);
    const missing = tikDist(process.cwd(), ['status']);
    expect(missing.code).toBe(2);
    const failure = tikDist(process.cwd(), ['--root', '/nonexistent/store', 'status', 'abc']);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toMatch(/^tik: store\/not-found: no tik store at \/nonexistent\/store/);
    expect(failure.stderr).toMatch(/hint: run `tik init`/);
    expect(failure.stderr).not.toMatch(/\n\s+at /);
  });

  it('finds the store by --root, TIK_ROOT, or the nearest ancestor holding one', async () => {
    const store = await supportStore();
    dirs.push(store);
    const id = tikDist(store, ['new', 'support-request', '--title', 'found']).stdout.trim();
    const sub = join(store, 'deep', 'er');
    mkdirSync(sub, { recursive: true });
    const byDiscovery = tikDist(sub, ['status', id, '--json'], { HOME: store });
    expect(byDiscovery.code, byDiscovery.stderr).toBe(0);
    expect(JSON.parse(byDiscovery.stdout).title).toBe('found');
    expect(tikDist('/', ['--root', store, 'status', id, '--json']).code).toBe(0);
    expect(tikDist('/', ['status', id, '--json'], { TIK_ROOT: store }).code).toBe(0);
  });
});
