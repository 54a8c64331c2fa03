/**
 * The study's literal fuzz (H1) as a property: any session-variable value — quotes, backslashes,
 * dollar quotes, comment markers, newlines, unicode — reaches every target as exactly one string
 * literal: the generated SQL re-parses to the same single statement and tables, and DuckDB and
 * SQLite return the value unchanged.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planQuery } from '../../../src/shoal/sql/index.js';
import { parseText } from '../../../src/shoal/sql/polyglot.js';
import { enumerateTables } from '../../../src/shoal/sql/scope.js';
import { loadTables, openDuck, rows, salesData } from './duckdb-harness.js';
import { salesCatalog } from './fixtures.js';

const hostile = fc.array(fc.oneof(
  fc.constantFrom("'", "''", '\\', "\\'", '$$', '$t$', '--', '/*', '*/', ';', '\n', '\r', '"', '`', 'E', 'N', 'U&', ' UNION SELECT s FROM secret ', ' OR 1=1 '),
  fc.string({ maxLength: 3 }),
  fc.constantFrom('é', '日本', '🦆', '\u0007'),
), { maxLength: 12 }).map((parts) => parts.join('')).filter((s) => !s.includes('\u0000'));

const sql = "SELECT current_setting('provisa.v') AS v, count(*) AS n FROM sales.payments WHERE current_setting('provisa.v') = current_setting('provisa.v')";

describe('literal fuzz (H1)', () => {
  let duck: DuckDBConnection;
  const lite = new Database(':memory:');
  beforeAll(async () => {
    duck = await openDuck();
    await loadTables(duck, 'sales', salesData());
    lite.exec('CREATE TABLE payments (id INTEGER, customer_id INTEGER, amount INTEGER, paid_at TEXT); INSERT INTO payments VALUES (1, 1, 10, \'2024-01-01\')');
  });
  afterAll(() => {
    duck?.closeSync();
    lite.close();
  });

  it('a variable value is one literal on every target and comes back unchanged', async () => {
    const targets = [
      [salesCatalog({ id: 'pg', type: 'postgresql' }), 'postgres'],
      [salesCatalog({ id: 'm', type: 'mariadb', binaryStrings: true }), 'mysql'],
      [salesCatalog({ id: 'm8', type: 'mysql', binaryStrings: true }), 'mysql'],
      [salesCatalog({ id: 'l', type: 'sqlite' }), 'sqlite'],
    ] as const;
    await fc.assert(fc.asyncProperty(hostile, async (value) => {
      const vars = { 'provisa.v': value };
      for (const [cat, dialect] of targets) {
        for (const route of ['auto', 'engine'] as const) {
          const p = planQuery({ sql, role: 'admin', vars }, cat, { route });
          const d = route === 'engine' ? 'duckdb' : dialect;
          const r = parseText(p.sql, d);
          expect(r.ok && r.statements.length).toBe(1);
          if (!r.ok) return;
          expect(enumerateTables(r.statements[0]!).map((t) => t.parts.at(-1))).toEqual(['payments']);
          const literals = JSON.stringify(r.statements[0]).split(JSON.stringify(value)).length - 1;
          expect(literals).toBeGreaterThanOrEqual(3);
        }
      }
      const onEngine = planQuery({ sql, role: 'admin', vars }, targets[0][0], { route: 'engine' });
      expect(await rows(duck, onEngine.sql)).toEqual([[value, '80']]);
      const onLite = planQuery({ sql, role: 'admin', vars }, targets[3][0]);
      expect(onLite.route.kind).toBe('direct');
      expect(lite.prepare(onLite.sql).raw(true).all()).toEqual([[value, 1]]);
    }), { numRuns: 150 });
  }, 300_000);
});
