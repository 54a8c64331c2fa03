import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// The README's main job: the walkthrough must run end to end on a temporary store.
describe('scripts/tik-walkthrough.sh', () => {
  it('runs every step, closes the ticket, verifies the store and passes its scripted tests', () => {
    const r = spawnSync('bash', ['scripts/tik-walkthrough.sh'], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/category must come from :triager \(seb\), not rando/);
    expect(r.stdout).toMatch(/stage\s+:closed :reproducible/);
    expect(r.stdout).toMatch(/1 ticket verified, 0 failed/);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('2 passed, 0 failed');
    // about twenty CLI cold starts in one script: generous on a loaded 2-core machine
  }, 180_000);
});
