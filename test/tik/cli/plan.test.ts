import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, json, supportStore, tik } from './harness.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});

interface Plan {
  ready: string[];
  blocked: string[];
  done: string[];
  cyclic: string[];
  criticalPath: string[];
  unlocks: Record<string, number>;
  status: Record<string, string>;
}

describe('tik plan', () => {
  it('derives ready, blocked, done, cycles and the critical path from depends-on links', async () => {
    const d = await supportStore();
    dirs.push(d);
    const mk = async (title: string): Promise<string> => (await tik(d, ['new', 'support-request', '--title', title])).stdout.trim();
    const a = await mk('design');
    const b = await mk('build');
    const c = await mk('ship');
    const x = await mk('loop one');
    const y = await mk('loop two');
    const done = await mk('already done');
    await tik(d, ['set', b, `link.depends-on=${a}`]);
    await tik(d, ['set', c, `link.depends-on=${b}`]);
    const w = await mk('waits on nothing real');
    await tik(d, ['set', w, 'link.depends-on=0b0e5d1c']); // an ambiguous prefix names no ticket: it blocks
    await tik(d, ['set', x, `link.depends-on=${y}`]);
    await tik(d, ['set', y, `link.depends-on=${x}`]);
    writeFileSync(join(d, 'crash.sh'), 'x');
    await tik(d, ['set', done, 'category=technical', 'severity=high', 'resolution.ref=abcdef123456']);
    await tik(d, ['attach', done, 'crash.sh']);
    await tik(d, ['--actor', 'customer', 'set', done, 'customer.ack=true']);
    const r = await tik(d, ['plan', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const p = json<Plan>(r);
    expect(p.ready).toEqual(['0b0e5d1c', a].sort());
    expect(p.blocked).toEqual([b, c, w].sort());
    expect(p.cyclic).toEqual([x, y].sort());
    expect(p.done).toEqual([done]);
    expect(p.criticalPath).toEqual([a, b, c]);
    expect(p.unlocks[a]).toBe(1);
    const text = (await tik(d, ['plan'])).stdout;
    expect(text).toMatch(/^PLAN {2}2 ready · 3 blocked · 1 done · 2 in a cycle/);
    expect(text).toContain(`critical path (3 step(s) remaining):\n  ${a.slice(0, 8)} design → ${b.slice(0, 8)} build → ${c.slice(0, 8)} ship`);
    expect(text).toContain(`▸ ${a.slice(0, 8)} design   unlocks 1`);
    expect((await tik(d, ['plan', 'plan.html'])).code).toBe(0);
    const html = readFileSync(join(d, 'plan.html'), 'utf8');
    expect(html).not.toMatch(/<script|src=|https?:/i);
    expect(html).toContain('critical path — 3 step(s) remaining');
  });

  it('an unlinked ticket is ready; an empty store says how to start', async () => {
    const d = await supportStore();
    dirs.push(d);
    expect((await tik(d, ['plan'])).stdout).toMatch(/no dependency links yet/);
    const alone = (await tik(d, ['new', 'support-request', '--title', 'alone'])).stdout.trim();
    expect(json<Plan>(await tik(d, ['plan', '--json'])).ready).toEqual([alone]);
  });
});
