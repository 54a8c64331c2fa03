import { afterAll, describe, expect, it } from 'vitest';
import { Instant } from '../../../src/tik/edn/index.js';
import { effectKey, parseEffectsConfig, scanReached } from '../../../src/tik/effects/index.js';
import { closeStore, MemoryStore, openStore } from '../../../src/tik/store/index.js';
import { T0, cleanup, tik } from '../cli/harness.js';
import { DEPLOY, approve, deployStore, newDeploy } from './effects-fixture.js';

const NOW = new Instant(Date.parse(T0));
const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

const rules = parseEffectsConfig(`{:effects [{:stage :requested :url "http://h.example/r" :process :deploy}
                                             {:stage :approved :url "http://h.example/a"}
                                             {:stage :requested :url "http://h.example/other" :process :other}]}`).rules;

/** The stored events of a ticket in `dir` (unordered). */
async function events(dir: string, ticket: string): Promise<{ id: string; bytes: Uint8Array }[]> {
  const s = await openStore(dir);
  try {
    return [...(await s.events(ticket))];
  } finally {
    await closeStore(s);
  }
}

describe('scanning for reached stages', () => {
  it('matches reached stages against the rules (process filter included) and fixes the body', async () => {
    const dir = await deployStore();
    dirs.push(dir);
    const a = await newDeploy(dir, 'first');
    const b = await newDeploy(dir, 'second');
    await approve(dir, b);
    const s = await openStore(dir);
    try {
      const { due, skipped } = await scanReached(s, rules, NOW);
      expect(skipped).toEqual([]);
      const got = due.map((d) => `${d.ticket} ${d.stage} ${d.url}`).sort();
      expect(got).toEqual([`${a} :requested http://h.example/r`, `${b} :approved http://h.example/a`, `${b} :requested http://h.example/r`].sort());
      const approved = due.find((d) => d.stage === ':approved')!;
      expect(approved.key).toBe(effectKey(b, ':approved', { type: 'webhook', url: 'http://h.example/a' }));
      expect(JSON.parse(approved.payload)).toEqual({ key: approved.key, pipeline: 'default', ticket: b, stage: ':approved', process: ':deploy', title: 'second' });
    } finally {
      await closeStore(s);
    }
  });

  it('skips a ticket whose log is incomplete (a partial log could show a stage the whole log does not reach)', async () => {
    const dir = await deployStore();
    dirs.push(dir);
    const t = await newDeploy(dir);
    const [create] = await events(dir, t);
    expect((await tik(dir, ['set', t, 'note=x'])).code).toBe(0);
    const before = new Set((await events(dir, t)).map((e) => e.id));
    await approve(dir, t);
    const approveEvent = (await events(dir, t)).find((e) => !before.has(e.id))!;
    // a replica that has the create and the approval but not the note the approval builds on
    const partial = new MemoryStore();
    await partial.writeNamedProcess('deploy', DEPLOY);
    await partial.append(t, create!.id, create!.bytes);
    await partial.append(t, approveEvent.id, approveEvent.bytes);
    const { due, skipped } = await scanReached(partial, rules, NOW);
    expect(due).toEqual([]);
    expect(skipped).toEqual([{ ticket: t, reason: 'log incomplete: 1 parent event(s) missing' }]);
  });

  it('skips a ticket whose definition cannot be resolved, and carries on with the others', async () => {
    const dir = await deployStore();
    dirs.push(dir);
    const t = await newDeploy(dir);
    const store = new MemoryStore();
    for (const e of await events(dir, t)) await store.append(t, e.id, e.bytes);
    const { due, skipped } = await scanReached(store, rules, NOW);
    expect(due).toEqual([]);
    expect(skipped.map((x) => x.ticket)).toEqual([t]);
    await store.writeNamedProcess('deploy', DEPLOY);
    expect((await scanReached(store, rules, NOW)).due.map((d) => d.stage)).toEqual([':requested']);
  });

  it('with no rules it reads nothing', async () => {
    expect(await scanReached(new MemoryStore(), [], NOW)).toEqual({ due: [], skipped: [] });
  });
});
