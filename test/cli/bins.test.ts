import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// The bins are what package.json points at: compiled JavaScript under dist/ (npm test builds first).
const run = (bin: string, ...args: string[]) =>
  spawnSync(process.execPath, [`dist/src/${bin}/cli/main.js`, ...args], { encoding: 'utf8' });

describe('compiled bins', () => {
  it.each(['tik', 'shoal'])('%s --help runs from dist and names the command', (bin) => {
    const r = run(bin, '--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`Usage: ${bin}`);
  });

  it.each(['tik', 'shoal'])('%s rejects an unknown verb with a usage error', (bin) => {
    const r = run(bin, 'no-such-verb');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/unknown command|too many arguments|error/i);
  });
});
