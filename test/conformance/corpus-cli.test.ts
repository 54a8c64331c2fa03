import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emit, readEdn } from '../../src/tik/edn/index.js';
import { formatInstant } from '../../src/tik/edn/instant-text.js';
import type { Instant} from '../../src/tik/edn/value.js';
import { isMap, isSet, isVector, Keyword, type EdnValue } from '../../src/tik/edn/value.js';
import { cleanup, CONFORMANCE, tempDir, tikDist } from '../tik/cli/harness.js';

// Each corpus case goes through the path a user's store takes: its files are copied into a
// temporary file store, and the compiled `tik status --json` (node dist/src/tik/cli/main.js)
// must report expected.edn's reached and current stages and present facts (tik-model.md §6.5).

const corpus = join(CONFORMANCE, 'corpus');
const cases = readdirSync(corpus).sort();
const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

const field = (m: EdnValue, k: string): EdnValue | undefined => (isMap(m) ? m.get(Keyword.of(k)) : undefined);
const stages = (v: EdnValue | undefined): string[] => (isSet(v) ? [...v.values()].map((s) => (s as Keyword).toString()).sort() : []);

interface Status {
  ticket: string;
  current: string[];
  reached: string[];
  facts: Record<string, { status: string; value: string | null }>;
  missingParents: string[];
}

describe('conformance corpus through the tik command', () => {
  it('has the three upstream cases', () => {
    expect(cases).toEqual(['concurrent-conflict', 'support-closed-sticky', 'sweep-order-negation']);
  });

  for (const name of cases) {
    it(`${name}: status --json matches expected.edn`, () => {
      const src = join(corpus, name);
      const expected = readEdn(readFileSync(join(src, 'expected.edn'), 'utf8'));
      const store = tempDir(`tik-corpus-${name}-`);
      dirs.push(store);
      mkdirSync(join(store, 'tickets'));
      cpSync(join(src, 'tickets'), join(store, 'tickets'), { recursive: true });
      cpSync(join(src, 'processes'), join(store, 'processes'), { recursive: true });
      const [ticket] = readdirSync(join(store, 'tickets'));
      const now = field(expected, 'now') as Instant;

      const r = tikDist(store, ['status', ticket!.slice(0, 13), '--at', formatInstant(now.ms), '--json'], { TIK_ROOT: store });
      expect(r.code, r.stderr).toBe(0);
      const s = JSON.parse(r.stdout) as Status;
      expect(s.ticket).toBe(ticket);
      expect(s.reached).toEqual(stages(field(expected, 'reached')));
      expect(s.current).toEqual(stages(field(expected, 'current')));
      expect(s.missingParents).toEqual([]);

      const present = Object.fromEntries(
        Object.entries(s.facts)
          .filter(([, f]) => f.status === 'present')
          .map(([k, f]) => [k, f.value]),
      );
      const facts = field(expected, 'facts');
      const want: Record<string, string> = {};
      if (isMap(facts)) {
        for (const [path, value] of facts.entries()) {
          if (!isVector(path)) throw new Error('a corpus fact path is a vector');
          want[path.map((k) => (k as Keyword).text).join('.')] = emit(value);
        }
      }
      expect(present).toEqual(want);
    });
  }

  // The case holds its history twice (a stale copy pinned to b103a5… and the current one, §13.1),
  // so each side of the conflict is claimed by two events.
  it('concurrent-conflict reports the category as conflicted between :billing and :technical', () => {
    const store = dirs.find((d) => d.includes('concurrent-conflict'))!;
    const [ticket] = readdirSync(join(store, 'tickets'));
    const s = JSON.parse(tikDist(store, ['status', ticket!, '--at', '2026-07-08T12:00:00Z', '--json'], { TIK_ROOT: store }).stdout) as {
      facts: Record<string, { status: string; claims?: { value: string; by: string }[] }>;
    };
    expect(s.facts.category!.status).toBe('conflicted');
    expect([...new Set(s.facts.category!.claims!.map((c) => c.value))].sort()).toEqual([':billing', ':technical']);
    expect(s.facts.category!.claims).toHaveLength(4);
  });

  it('the copied event files stay byte-identical (reads never write)', () => {
    for (const store of dirs) {
      const name = cases.find((c) => store.includes(c))!;
      const [ticket] = readdirSync(join(store, 'tickets'));
      const events = join('tickets', ticket!, 'events');
      const files = readdirSync(join(store, events)).sort();
      expect(files).toEqual(readdirSync(join(corpus, name, events)).sort());
      for (const f of files) expect(readFileSync(join(store, events, f)).equals(readFileSync(join(corpus, name, events, f)))).toBe(true);
    }
  });
});
