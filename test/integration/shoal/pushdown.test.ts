/**
 * Pushdown from the governed plan through a real instance on real PostgreSQL and MariaDB
 * (case-insensitive default collation): the same answer with and without the plan's specs for
 * random governed queries and viewers, and a selective RLS role fetches fewer rows than the
 * table holds and only the columns it can see.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LandingReport } from '../../../src/shoal/engine/engine.js';
import { planQuery } from '../../../src/shoal/sql/index.js';
import { service } from '../../support/service.js';
import { salesData } from '../../shoal/sql/duckdb-harness.js';
import { loadMariadb, loadPostgres } from '../../support/server-tables.js';
import { type LawInstance, VIEWERS, collect, lawQueryArb, runBoth, salesConfigYaml, startLawInstance, viewerArb } from '../../shoal/sql/pushdown-law.js';

const postgres = service('postgres');
const mariadb = service('mariadb');
const DB = `shoal_pushdown_it_${process.pid}`;
const data = salesData();


/** The law and the effectiveness checks, once the source holds `salesData()`. */
function pushdownSuite(name: string, sourceLine: () => string, equalCase: (a: unknown, b: unknown) => boolean, schema?: string): void {
  describe(`${name}: pushdown through a real instance`, () => {
    let dir: string;
    let law: LawInstance;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'shoal-pushdown-it-'));
      law = await startLawInstance(salesConfigYaml(sourceLine(), schema), dir);
    }, 60_000);
    afterAll(async () => {
      await law?.instance.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('law: pushdown never changes an answer', async () => {
      let pushed = 0;
      await fc.assert(
        fc.asyncProperty(lawQueryArb, viewerArb, async (sql, viewer) => {
          const r = await runBoth(law, sql, viewer);
          expect(r.withPushdown).toEqual(r.without);
          if (r.landings.some((l) => l.params.length > 0)) pushed++;
        }),
        { numRuns: 150 },
      );
      expect(pushed).toBeGreaterThan(30);
    }, 300_000);

    it('effectiveness: a selective RLS role fetches fewer rows than the table holds, and only the columns the query needs', async () => {
      const customers = data.find((t) => t.name === 'customers')!;
      for (const v of VIEWERS.filter((x) => x.role === 'analyst')) {
        const plan = planQuery({ sql: 'SELECT c.id, c.name FROM sales.customers c', role: v.role, vars: v.vars }, law.governance, { route: 'engine' });
        const landings: LandingReport[] = [];
        const rows = await collect(law.instance.engine.execute(plan.sql, { pushdown: plan.pushdown, onLanding: (l) => landings.push(l) }));
        const expected = customers.rows.filter((r) => r[3] === v.vars['provisa.region']).length;
        expect(rows).toHaveLength(expected);
        expect(landings).toHaveLength(1);
        expect(landings[0]!.rowsFetched).toBeLessThan(customers.rows.length);
        expect(landings[0]!.rowsFetched).toBeGreaterThanOrEqual(expected);
        expect(landings[0]!.params).toEqual([v.vars['provisa.region']]);
        expect(landings[0]!.columns.map((c) => c.name)).toEqual(['id', 'name', 'region']);
      }
    });

    it('effectiveness: an outer equality narrows the fetch to a superset the engine filters exactly', async () => {
      const customers = data.find((t) => t.name === 'customers')!;
      const plan = planQuery({ sql: "SELECT c.id FROM sales.customers c WHERE c.tier = 'gold'", role: 'admin' }, law.governance, { route: 'engine' });
      const landings: LandingReport[] = [];
      const rows = await collect(law.instance.engine.execute(plan.sql, { pushdown: plan.pushdown, onLanding: (l) => landings.push(l) }));
      expect(rows).toHaveLength(customers.rows.filter((r) => r[6] === 'gold').length);
      // a case-insensitive collation also returns 'GOLD': more than asked for, never less
      expect(landings[0]!.rowsFetched).toBe(customers.rows.filter((r) => equalCase(r[6], 'gold')).length);
      expect(landings[0]!.rowsFetched).toBeLessThan(customers.rows.length);
    });
  });
}

describe.skipIf(postgres.skip)('PostgreSQL', () => {
  let drop: (() => Promise<void>) | undefined;
  const url = postgres.skip ? undefined : new URL(postgres.url as string);
  // a non-default schema: the engine table is (src, shop, <table>)
  beforeAll(async () => void (drop = await loadPostgres(postgres.url as string, DB, data, 'shop')));
  afterAll(async () => drop?.());
  pushdownSuite(
    'PostgreSQL',
    () => `{id: src, type: postgresql, host: "${url!.hostname}", port: ${url!.port}, database: ${DB}, username: "${decodeURIComponent(url!.username)}"}`,
    (a, b) => a === b,
    'shop',
  );
});

describe.skipIf(mariadb.skip)('MariaDB', () => {
  let drop: (() => Promise<void>) | undefined;
  const url = mariadb.skip ? undefined : new URL(mariadb.url as string);
  beforeAll(async () => void (drop = await loadMariadb(mariadb.url as string, DB, data)));
  afterAll(async () => drop?.());
  pushdownSuite(
    'MariaDB',
    () => `{id: src, type: mariadb, host: "${url!.hostname}", port: ${url!.port}, database: ${DB}, username: "${decodeURIComponent(url!.username)}"}`,
    (a, b) => typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase(),
  );
});
