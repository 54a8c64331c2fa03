import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, json, snapshot, supportStore, tik } from './harness.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});

async function triaged(): Promise<{ d: string; id: string }> {
  const d = await supportStore();
  dirs.push(d);
  const id = (await tik(d, ['new', 'support-request', '--title', 'Login fails'])).stdout.trim();
  const r = await tik(d, ['set', id, 'category=technical', 'severity=high']);
  expect(r.code, r.stderr).toBe(0);
  return { d, id };
}

interface Causal {
  stage: string;
  support: { via: string; events?: string[]; note?: string }[];
}

describe('tik causal', () => {
  it('cites, per reached stage and guard, the event behind the current value', async () => {
    const { d, id } = await triaged();
    const log = json<{ id: string; body: string }[]>(await tik(d, ['log', id, '--json']));
    const c = json<Causal[]>(await tik(d, ['causal', id, '--json']));
    expect(c.map((e) => e.stage)).toEqual([':received', ':triaged']);
    const triage = c[1]!.support;
    const category = triage.find((s) => s.via === '[:fact [:category]]')!;
    expect(category.events).toHaveLength(1);
    expect(log.map((e) => e.id)).toContain(category.events![0]);
    // a re-assert moves the citation to the newer event
    await tik(d, ['set', id, 'category=billing']);
    const again = json<Causal[]>(await tik(d, ['causal', id, '--json']));
    const moved = again[1]!.support.find((s) => s.via === '[:fact [:category]]')!;
    expect(moved.events).toHaveLength(1);
    expect(moved.events![0]).not.toBe(category.events![0]);
    const text = await tik(d, ['causal', id]);
    expect(text.stdout).toMatch(/:triaged is supported by:\n {2}\[:fact \[:category\]\]\n {4}← sha256-/);
  });
});

describe('tik whatif', () => {
  it('shows the stages hypothetical steps gain and lose, and writes nothing', async () => {
    const { d, id } = await triaged();
    const before = snapshot(d);
    const r = json<{ steps: string[]; gained: string[]; lost: string[] }>(await tik(d, ['whatif', id, 'retract:category', '--json']));
    expect(r).toEqual({ steps: ['retract:category'], gained: [], lost: [':triaged'] });
    // 48 hours with no category escalate (a time guard under a negation)
    const time = json<{ gained: string[]; lost: string[] }>(await tik(d, ['whatif', id, 'retract:category', '+P2D', '--json']));
    expect(time).toMatchObject({ gained: [':escalated'], lost: [':triaged'] });
    expect(json<{ gained: string[] }>(await tik(d, ['whatif', id, '+P2D', '--json'])).gained).toEqual([]);
    const none = await tik(d, ['whatif', id, 'severity=high']);
    expect(none.stdout).toMatch(/no derived change/);
    expect(snapshot(d)).toEqual(before);
  });

  it('refuses a malformed step as a usage error', async () => {
    const { d, id } = await triaged();
    for (const bad of ['nonsense', '+Pxx', 'retract:', '=x']) {
      const r = await tik(d, ['whatif', id, bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stdout).toBe('');
    }
  });
});
