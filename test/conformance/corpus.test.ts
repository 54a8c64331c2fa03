// The kernel-level corpus (tik-model.md §6.5): each case's event files and process file are read
// in place and run through the reducer and stage derivation, exactly as upstream's corpus_test.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentId, emit, readEdn } from '../../src/tik/edn/index.js';
import type { EdnMap, EdnSet, Instant} from '../../src/tik/edn/value.js';
import { kw, type EdnValue } from '../../src/tik/edn/value.js';
import {
  currentStages,
  effectiveReached,
  factMap,
  parseEvent,
  parseProcess,
  parseRoleMap,
  reduce,
  type TikEvent,
} from '../../src/tik/kernel/index.js';

const CORPUS = resolve(process.cwd(), '../shared/tik-conformance/corpus');

interface CorpusCase {
  name: string;
  expected: EdnMap;
  processText: string;
  events: TikEvent[];
  files: { name: string; text: string }[];
}

function loadCase(name: string): CorpusCase {
  const dir = join(CORPUS, name);
  const expected = readEdn(readFileSync(join(dir, 'expected.edn'), 'utf8')) as EdnMap;
  const proc = expected.get(kw('process'));
  const processText = readFileSync(join(dir, 'processes', `${String(proc).slice(1)}.edn`), 'utf8');
  const tickets = readdirSync(join(dir, 'tickets'));
  expect(tickets).toHaveLength(1);
  const evDir = join(dir, 'tickets', tickets[0] as string, 'events');
  const files = readdirSync(evDir)
    .filter((f) => f.endsWith('.edn'))
    .map((f) => ({ name: f, text: readFileSync(join(evDir, f), 'utf8') }));
  const events = files.map((f) => parseEvent(f.text, f.name.slice(0, -'.edn'.length), join(evDir, f.name)));
  return { name, expected, processText, events, files };
}

const stageSet = (v: EdnValue | undefined): string[] => [...(v as EdnSet).values()].map((x) => emit(x)).sort();

const cases = readdirSync(CORPUS).sort();

describe('tik corpus at kernel level', () => {
  it('has the three upstream cases', () => {
    expect(cases).toEqual(['concurrent-conflict', 'support-closed-sticky', 'sweep-order-negation']);
  });

  for (const name of cases) {
    describe(name, () => {
      const c = loadCase(name);

      it('every event file re-emits byte-exactly and is named by its hash', () => {
        for (const f of c.files) {
          const ev = c.events.find((e) => `${e.id}.edn` === f.name) as TikEvent;
          expect(emit(ev.map)).toBe(f.text);
          expect(`${contentId(f.text)}.edn`).toBe(f.name);
        }
      });

      it('derives the expected reached set, current stages and facts', () => {
        const def = parseProcess(readEdn(c.processText, name));
        const roles = parseRoleMap(def.raw.get(kw('process/roles')), name, ':process/roles');
        const now = c.expected.get(kw('now')) as Instant;
        const reached = effectiveReached(def, c.events, now, roles);
        expect([...reached].sort()).toEqual(stageSet(c.expected.get(kw('reached'))));
        // Step 5 uses the *expected* reached set.
        const expectedReached = new Set(stageSet(c.expected.get(kw('reached'))));
        expect([...currentStages(def, expectedReached)].sort()).toEqual(stageSet(c.expected.get(kw('current'))));
        const facts = factMap(reduce(c.events));
        const expectedFacts = c.expected.get(kw('facts')) as EdnMap;
        const got = new Map([...facts].map(([k, v]) => [k, emit(v.value)]));
        const want = new Map([...expectedFacts.textEntries()].map(([k, , v]) => [k, emit(v)]));
        expect(got).toEqual(want);
      });
    });
  }
});
