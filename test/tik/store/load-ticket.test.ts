import { createHash } from 'node:crypto';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emit, kw, readEdn, type EdnMap, type EdnSet, type Instant } from '../../../src/tik/edn/index.js';
import { currentStages, effectiveReached } from '../../../src/tik/kernel/index.js';
import { openFileStore } from '../../../src/tik/store/file/open-file-store.js';
import { LoadContext, loadTicket } from '../../../src/tik/store/index.js';
import { CORPUS, DEFINITION_SOURCE, TICKET, buildStore, eventPath, snapshot, type Built } from '../verify/store-fixture.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});
async function built(options?: Parameters<typeof buildStore>[0]): Promise<Built> {
  const b = await buildStore(options);
  cleanups.push(b.cleanup);
  return b;
}

const setTexts = (v: unknown): string[] => [...(v as EdnSet).values()].map((x) => emit(x)).sort();

describe('loadTicket over the conformance corpus (file store → kernel)', () => {
  for (const c of ['concurrent-conflict', 'support-closed-sticky', 'sweep-order-negation']) {
    it(`${c}: loads with its named definition and derives the expected stages`, async () => {
      const store = openFileStore(join(CORPUS, c));
      const [ticket] = await store.ticketIds();
      const t = await loadTicket(store, ticket!);
      expect(t.problems).toEqual([]);
      expect(t.warnings).toEqual([]);
      expect(t.definitionSource).toBe('named');
      expect(t.events.length).toBe(t.stored.length);
      const expected = readEdn(readFileSync(join(CORPUS, c, 'expected.edn'), 'utf8')) as EdnMap;
      expect(t.pin.process).toBe((expected.get(kw('process')) as { name: string }).name);
      expect(t.definition!.hash).toBe(t.pin.hash);
      const now = expected.get(kw('now')) as Instant;
      const reached = effectiveReached(t.definition!, t.events, now, t.roles!);
      expect([...reached].sort()).toEqual(setTexts(expected.get(kw('reached'))));
      expect([...currentStages(t.definition!, reached)].sort()).toEqual(setTexts(expected.get(kw('current'))));
    });
  }
});

describe('loadTicket resolution (§4.2)', () => {
  it('prefers the archived definition', async () => {
    const b = await built();
    const t = await loadTicket(b.store, TICKET);
    expect(t).toMatchObject({ definitionSource: 'by-hash', problems: [], warnings: [], missingParents: [] });
    expect(t.definition!.hash).toBe(b.hash);
    expect(t.pin).toEqual({ process: 'demo', version: 1n, hash: b.hash });
  });

  it('falls back to the named definition, warning when its hash differs', async () => {
    const edited = DEFINITION_SOURCE.replace('{:stage/id :open :guards []}', '{:stage/id :open :guards [] :hint "start"}');
    const b = await built({ archive: false, named: edited });
    const t = await loadTicket(b.store, TICKET);
    expect(t.definitionSource).toBe('named');
    expect(t.definition).toBeDefined();
    expect(t.problems).toEqual([]);
    expect(t.warnings).toMatchObject([{ code: 'process/pin-mismatch', where: 'processes/demo.edn' }]);
    expect(t.warnings[0]!.message).toBe(`the ticket is pinned to ${b.hash}, which is not archived; processes/demo.edn hashes to ${t.definition!.hash}`);
  });

  it('reports an unresolvable pin and leaves the definition undefined', async () => {
    const b = await built({ archive: false, named: false });
    const t = await loadTicket(b.store, TICKET);
    expect(t.definition).toBeUndefined();
    expect(t.roles).toBeUndefined();
    expect(t.problems).toMatchObject([{ code: 'process/unresolved' }]);
    expect(t.events).toHaveLength(3);
  });

  it('an archive that does not hash to its name is a problem, and the named copy is used', async () => {
    const b = await built();
    const path = join(b.root, 'processes', 'by-hash', `${b.hash}.edn`);
    writeFileSync(path, readFileSync(path, 'utf8').replace(':done', ':closed'));
    const t = await loadTicket(b.store, TICKET);
    expect(t.problems).toMatchObject([{ code: 'process/by-hash-mismatch' }]);
    expect(t.definitionSource).toBe('named');
  });

  it('merges roles.edn over the definition roles, whole roles replaced', async () => {
    const withRoles = DEFINITION_SOURCE.replace(':process/version 1', ':process/version 1 :process/roles {:triager {:members ["x"]} :billing {:members ["y"]}}');
    const b = await built({ archive: false, named: withRoles, pinHash: undefined });
    writeFileSync(join(b.root, 'roles.edn'), ';; register\n{:triager {:members ["seb" "ana"]}}\n');
    const t = await loadTicket(b.store, TICKET);
    expect(t.roles!.get(':triager')).toEqual(['seb', 'ana']);
    expect(t.roles!.get(':billing')).toEqual(['y']);
  });

  it('one LoadContext serves many tickets and reads each file once', async () => {
    const b = await built();
    let reads = 0;
    const counting = new Proxy(b.store, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (prop === 'readProcessByHash' && typeof v === 'function') {
          return (...args: unknown[]) => {
            reads++;
            return (v as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const ctx = new LoadContext(counting);
    await loadTicket(counting, TICKET, ctx);
    await loadTicket(counting, TICKET, ctx);
    expect(reads).toBe(1);
  });
});

describe('loadTicket degrades instead of crashing', () => {
  it('reports missing parents as a warning and still derives', async () => {
    const b = await built();
    unlinkSync(eventPath(b.root, TICKET, b.ids[1]!));
    const t = await loadTicket(b.store, TICKET);
    expect(t.missingParents).toEqual([b.ids[1]]);
    expect(t.warnings).toMatchObject([{ code: 'ticket/missing-parents' }]);
    expect(t.warnings[0]!.message).toContain('log INCOMPLETE');
    expect(t.definition).toBeDefined();
  });

  it('leaves out and reports a file that does not hash to its name, or does not parse', async () => {
    const b = await built();
    writeFileSync(eventPath(b.root, TICKET, b.ids[2]!), 'edited');
    const junk = '{:event/at';
    const junkId = `sha256-${createHash('sha256').update(junk).digest('hex')}`;
    await b.store.append(TICKET, junkId, Buffer.from(junk));
    const before = snapshot(b.root);
    const t = await loadTicket(b.store, TICKET);
    expect(t.events.map((e) => e.id).sort()).toEqual([b.ids[0], b.ids[1]].sort());
    expect(t.problems.map((p) => [p.code, p.event]).sort()).toEqual(
      [
        ['event/hash-mismatch', b.ids[2]],
        ['event/malformed', junkId],
      ].sort(),
    );
    expect(t.problems.find((p) => p.code === 'event/malformed')!.message).toMatch(/line 1, column/);
    expect(snapshot(b.root)).toBe(before);
  });

  it('an unknown ticket loads empty with a problem; a malformed id throws', async () => {
    const b = await built();
    const t = await loadTicket(b.store, '018f2f6e-7c1a-7000-8000-0000000000ff');
    expect(t.events).toEqual([]);
    expect(t.problems).toMatchObject([{ code: 'ticket/empty' }]);
    await expect(loadTicket(b.store, 'abc')).rejects.toMatchObject({ code: 'store/bad-ticket' });
  });
});
