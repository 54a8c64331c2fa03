/**
 * The read graph of derived tables: cycle detection and the depth the refresh loop orders by, as
 * laws over random graphs (the planning itself is exercised end to end in mv-derived.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { derivedCycle, mvDepth, planDerivedTables, type DerivedTable } from '../../../src/shoal/mv/derived-graph.js';

/** A random read graph over n derived tables (`k0…`), some materialized, some reading a base table. */
const graphs = fc.integer({ min: 1, max: 7 }).chain((n) =>
  fc.record({
    reads: fc.array(fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: 3 }), { minLength: n, maxLength: n }),
    materialized: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
  }),
);

const key = (i: number) => `k${i}`;

function edgesOf(g: { reads: number[][] }): Map<string, string[]> {
  return new Map(g.reads.map((r, i) => [key(i), [...r.map(key), 'base.table']]));
}

/** Reference: the keys reachable from `start` in one or more steps. */
function reachable(edges: ReadonlyMap<string, readonly string[]>, start: string): Set<string> {
  const out = new Set<string>();
  const todo = [...(edges.get(start) ?? [])];
  while (todo.length > 0) {
    const k = todo.pop()!;
    if (out.has(k)) continue;
    out.add(k);
    todo.push(...(edges.get(k) ?? []));
  }
  return out;
}

function planned(g: { reads: number[][]; materialized: boolean[] }): Map<string, DerivedTable> {
  return new Map(
    g.reads.map((r, i) => [key(i), { id: key(i), table: {} as DerivedTable['table'], materialized: g.materialized[i]!, engineSql: 'SELECT 1', error: null, reads: [...r.map(key), 'base.table'] }]),
  );
}

describe('the derived-table read graph', () => {
  it('law: derivedCycle finds a cycle exactly when a table can reach itself, and the cycle it returns is a path of reads', () => {
    fc.assert(
      fc.property(graphs, (g) => {
        const edges = edgesOf(g);
        for (const start of edges.keys()) {
          const cycle = derivedCycle(edges, start);
          expect(cycle !== null).toBe(reachable(edges, start).has(start));
          if (cycle) {
            expect(cycle[0]).toBe(start);
            expect(cycle.at(-1)).toBe(start);
            for (let i = 0; i + 1 < cycle.length; i++) expect(edges.get(cycle[i]!)).toContain(cycle[i + 1]);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('law: on an acyclic graph, a table sorts after every MV it reads (directly or through views), so the loop refreshes upstream first', () => {
    fc.assert(
      fc.property(graphs, (g) => {
        const edges = edgesOf(g);
        fc.pre([...edges.keys()].every((k) => derivedCycle(edges, k) === null));
        const p = planned(g);
        for (const [k, d] of p) {
          for (const r of d.reads) {
            const up = p.get(r);
            if (!up) continue;
            expect(mvDepth(p, k)).toBeGreaterThanOrEqual(mvDepth(p, r) + (up.materialized ? 1 : 0));
          }
          // depth 0 exactly when no MV is reachable
          expect(mvDepth(p, k) === 0).toBe(![...reachable(edges, k)].some((x) => p.get(x)?.materialized));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('plans each derived table for the service role: its reads, its engine SQL over the relations of what it reads', () => {
    const { config } = loadConfig({
      text: `
domains: [{id: d}]
sources: [{id: f, type: csv, path: f.csv}]
tables:
  - {source_id: f, domain_id: d, table: t, columns: [{name: id, data_type: integer}, {name: secret, data_type: varchar, visible_to: [nobody]}]}
  - {source_id: __derived__, domain_id: d, table: m, materialize: true, view_sql: "SELECT id, secret FROM f.default.t", columns: [{name: id}, {name: secret}]}
  - {source_id: __derived__, domain_id: d, table: v, view_sql: "SELECT id FROM d.m", columns: [{name: id}]}
  - {source_id: __derived__, domain_id: d, table: broken, view_sql: "SELECT nope FROM f.default.t", columns: [{name: nope}]}
roles: [{id: nobody, capabilities: [], domain_access: [d]}]
`,
    });
    const p = planDerivedTables(config);
    expect([...p.keys()]).toEqual(['d.m', 'd.v', 'd.broken']);
    // the service role reads the column no caller may see
    expect(p.get('d.m')).toMatchObject({ materialized: true, reads: ['d.t'], error: null });
    expect(p.get('d.v')).toMatchObject({ materialized: false, reads: ['d.m'], error: null });
    expect(p.get('d.v')!.engineSql).toMatch(/__shoal_mv_d_m_/);
    expect(p.get('d.broken')).toMatchObject({ engineSql: null, reads: [], error: expect.stringContaining('view_sql of d.broken') });
  });
});
