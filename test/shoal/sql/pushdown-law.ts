/**
 * The pushdown law through a real shoal instance (registry, DuckDB engine, landing connector):
 * a governed query returns the same multiset whether the engine gets the plan's pushdown specs
 * or lands whole tables. Shared by the SQLite unit test and the PostgreSQL/MariaDB integration test.
 */
import fc from 'fast-check';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import type { Cell, LandingReport, RowBatch } from '../../../src/shoal/engine/engine.js';
import { ShoalError } from '../../../src/shoal/errors.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { type GovernanceCatalog, catalogFromConfig, planQuery } from '../../../src/shoal/sql/index.js';
import { REGIONS } from './duckdb-harness.js';
import { TPCH } from './fixtures.js';
import { queryArb } from './query-arbitrary.js';

/** The sales tables (customers, payments) of `salesData()` on one source, governed for admin and analyst. */
export function salesConfigYaml(sourceLine: string, schema?: string): string {
  const schemaLine = schema === undefined ? '' : `\n    schema: ${schema}`;
  return `control_plane: {tenant_url: "sqlite:///registry.db"}
domains: [{id: sales}]
sources:
  - ${sourceLine}
tables:
  - source_id: src
    domain_id: sales
    table: customers${schemaLine}
    columns:
      - {name: id, data_type: integer}
      - {name: name, data_type: varchar}
      - {name: email, data_type: varchar, unmasked_to: [admin], mask_type: regex, mask_pattern: "^(.{2}).*(@.*)$", mask_replace: "$1***$2"}
      - {name: region, data_type: varchar}
      - {name: signup, data_type: date}
      - {name: score, data_type: integer}
      - {name: tier, data_type: varchar}
      - {name: ssn, data_type: varchar, visible_to: [admin]}
  - source_id: src
    domain_id: sales
    table: payments${schemaLine}
    columns:
      - {name: id, data_type: integer}
      - {name: customer_id, data_type: integer}
      - {name: amount, data_type: integer}
      - {name: paid_at, data_type: date}
roles:
  - {id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development], domain_access: [sales]}
rls_rules:
  - {table_id: customers, role_id: analyst, filter: "region = current_setting('provisa.region')"}
  - {table_id: payments, role_id: analyst, filter: "amount >= 100"}
`;
}

/** The sales tables plus the TPC-H-like tables of `tpchData()`, for the study corpus. */
export function corpusConfigYaml(sourceLine: string): string {
  const sales = salesConfigYaml(sourceLine);
  const tables = Object.entries(TPCH).map(([table, cols]) => `  - source_id: src
    domain_id: sales
    table: ${table}
    columns:
${cols.map(([name, type]) => `      - {name: ${name}, data_type: ${type}${name === 'c_phone' ? ', unmasked_to: [admin], mask_type: regex, mask_pattern: "^(.{3}).*$", mask_replace: "$1****"' : ''}}`).join('\n')}
`).join('');
  return sales.replace('roles:\n', `${tables}roles:\n`).replace('rls_rules:\n', "rls_rules:\n  - {table_id: customer, role_id: analyst, filter: \"c_mktsegment <> 'AUTOMOBILE'\"}\n");
}

export interface LawInstance {
  readonly instance: ShoalInstance;
  readonly governance: GovernanceCatalog;
}

export async function startLawInstance(yaml: string, baseDir: string): Promise<LawInstance> {
  const { config } = loadConfig(yaml);
  const instance = await ShoalInstance.start({ config, baseDir, pollMs: 60_000 });
  return { instance, governance: catalogFromConfig(config) };
}

export interface Viewer {
  readonly role: string;
  readonly vars: Readonly<Record<string, string>>;
}
export const VIEWERS: readonly Viewer[] = [
  { role: 'admin', vars: {} },
  ...REGIONS.map((r) => ({ role: 'analyst', vars: { 'provisa.region': r } })),
];

export async function collect(stream: AsyncIterable<RowBatch>): Promise<Cell[][]> {
  const rows: Cell[][] = [];
  for await (const b of stream) rows.push(...b.rows.map((r) => [...r]));
  return rows;
}

const canon = (rows: readonly (readonly Cell[])[]) => rows.map((r) => JSON.stringify(r)).sort();

type Outcome = { readonly ok: true; readonly rows: string[] } | { readonly ok: false; readonly code: string };

async function outcome(p: () => Promise<Cell[][]>): Promise<Outcome> {
  try {
    return { ok: true, rows: canon(await p()) };
  } catch (e) {
    if (e instanceof ShoalError) return { ok: false, code: e.code };
    throw e;
  }
}

export interface LawCase {
  /** Undefined when planning rejected the query (for both plans alike). */
  readonly withPushdown?: Outcome;
  readonly without?: Outcome;
  readonly landings: readonly LandingReport[];
  readonly pushedSpecs: number;
}

/** Run one query for one viewer with the plan's pushdown and with whole tables landed. */
export async function runBoth(law: LawInstance, sql: string, viewer: Viewer): Promise<LawCase> {
  const req = { sql, role: viewer.role, vars: viewer.vars };
  let plain;
  try {
    plain = planQuery(req, law.governance, { route: 'engine', pushdown: false });
  } catch (e) {
    if (e instanceof ShoalError) return { landings: [], pushedSpecs: 0 };
    throw e;
  }
  const pushed = planQuery(req, law.governance, { route: 'engine' });
  const landings: LandingReport[] = [];
  const engine = law.instance.engine;
  const withPushdown = await outcome(() => collect(engine.execute(pushed.sql, { pushdown: pushed.pushdown, onLanding: (r) => landings.push(r) })));
  const without = await outcome(() => collect(engine.execute(plain.sql)));
  return { withPushdown, without, landings, pushedSpecs: pushed.pushdown?.length ?? 0 };
}

const COLS = ['id', 'name', 'email', 'region', 'signup', 'score', 'tier'] as const;
const PCOLS = ['id', 'customer_id', 'amount', 'paid_at'] as const;

/** Conjuncts the pushdown deriver recognises (and a few it must leave alone), over alias `q`. */
const customerAtom = (q: string) => fc.oneof(
  fc.tuple(fc.constantFrom('=', '<>', '<', '<=', '>', '>='), fc.integer({ min: -5, max: 105 })).map(([op, n]) => `${q}.score ${op} ${n}`),
  fc.tuple(fc.constantFrom('=', '<>', '<', '>='), fc.integer({ min: 0, max: 45 })).map(([op, n]) => `${n} ${op} ${q}.id`),
  fc.tuple(fc.constantFrom('=', '<>', '<', '>'), fc.constantFrom('gold', 'GOLD', 'silver', 'bronze', 'Gold', '')).map(([op, t]) => `${q}.tier ${op} '${t}'`),
  fc.tuple(fc.constantFrom('=', '<>', '<=', '>'), fc.constantFrom(...REGIONS, 'eu')).map(([op, r]) => `${q}.region ${op} '${r}'`),
  fc.constantFrom('name-1%', '%EU', '%-u%', 'NAME%', '%').map((p) => `${q}.name LIKE '${p}'`),
  fc.constantFrom('%corp1%', 'us%', '%').map((p) => `${q}.email LIKE '${p}'`),
  fc.subarray([1, 2, 3, 5, 7, 11, 13, 40, 99], { minLength: 1 }).map((xs) => `${q}.id IN (${xs.join(', ')})`),
  fc.subarray(['gold', 'GOLD', 'silver', 'x'], { minLength: 1 }).map((xs) => `${q}.tier IN (${xs.map((x) => `'${x}'`).join(', ')})`),
  fc.constantFrom('IS NULL', 'IS NOT NULL').chain((k) => fc.constantFrom('score', 'tier').map((c) => `${q}.${c} ${k}`)),
  fc.tuple(fc.constantFrom('>=', '<', '='), fc.integer({ min: 1, max: 12 })).map(([op, m]) => `${q}.signup ${op} '2024-${String(m).padStart(2, '0')}-15'`),
  // non-canonical date text: typed comparison in the engine, text comparison in a SQLite file
  fc.tuple(fc.constantFrom('>=', '<', '=', '<>', '>'), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 })).map(([op, m, d]) => `${q}.signup ${op} '2024-${m}-${d}'`),
  fc.constantFrom(`${q}.score = 2.5`, `${q}.score > -1`, `${q}.score > 10.0`, `${q}.score + 1 > 50`, `lower(${q}.tier) = 'gold'`, `NOT (${q}.score > 50)`, `(${q}.score > 50 OR ${q}.tier = 'gold')`),
);
const paymentAtom = (q: string) => fc.oneof(
  fc.tuple(fc.constantFrom('=', '<', '>=', '<>'), fc.integer({ min: 0, max: 500 })).map(([op, n]) => `${q}.amount ${op} ${n}`),
  fc.constantFrom('IS NULL', 'IS NOT NULL').map((k) => `${q}.customer_id ${k}`),
  fc.integer({ min: 1, max: 45 }).map((n) => `${q}.customer_id = ${n}`),
);
const where = (atoms: fc.Arbitrary<string>) => fc.array(atoms, { minLength: 1, maxLength: 3 }).map((xs) => xs.join(' AND '));
const ccols = (q: string) => fc.subarray([...COLS], { minLength: 1 }).map((cs) => cs.map((c) => `${q}.${c}`).join(', '));

/** Queries whose shapes exercise every pushdown rule (joins of each kind, subqueries, CTEs, set operations). */
export const pushdownQueryArb: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(ccols('c'), where(customerAtom('c'))).map(([cs, w]) => `SELECT ${cs} FROM sales.customers c WHERE ${w}`),
  fc.tuple(ccols('c'), fc.constantFrom('JOIN', 'INNER JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN'), where(fc.oneof(customerAtom('c'), paymentAtom('p'))))
    .map(([cs, k, w]) => `SELECT ${cs}, p.amount, p.id AS pid FROM sales.customers c ${k} sales.payments p ON p.customer_id = c.id WHERE ${w}`),
  fc.tuple(fc.constantFrom('LEFT JOIN', 'JOIN'), where(paymentAtom('p')))
    .map(([k, w]) => `SELECT c.id, p.amount FROM sales.customers c ${k} sales.payments p ON p.customer_id = c.id AND ${w}`),
  fc.tuple(where(customerAtom('c')), where(paymentAtom('p')))
    .map(([a, b]) => `SELECT c.id, p.id AS pid FROM sales.customers c, sales.payments p WHERE c.id = p.customer_id AND ${a} AND ${b}`),
  fc.tuple(where(customerAtom('c')), where(customerAtom('s')))
    .map(([a, b]) => `SELECT s.id, s.tier FROM (SELECT * FROM sales.customers c WHERE ${a}) s WHERE ${b}`),
  fc.tuple(where(customerAtom('c')), fc.constantFrom('IN', 'NOT IN'), where(paymentAtom('p')))
    .map(([a, k, b]) => `SELECT c.id, c.name FROM sales.customers c WHERE ${a} AND c.id ${k} (SELECT p.customer_id FROM sales.payments p WHERE ${b})`),
  fc.tuple(where(customerAtom('c')), fc.constantFrom('UNION', 'UNION ALL', 'EXCEPT', 'INTERSECT'), where(customerAtom('c')))
    .map(([a, op, b]) => `SELECT c.id, c.tier FROM sales.customers c WHERE ${a} ${op} SELECT c.id, c.tier FROM sales.customers c WHERE ${b}`),
  fc.tuple(where(customerAtom('c')), where(customerAtom('t')))
    .map(([a, b]) => `WITH t AS (SELECT c.id, c.score, c.tier, c.region, c.name, c.email, c.signup FROM sales.customers c WHERE ${a}) SELECT t.id, t.tier FROM t WHERE ${b}`),
  fc.tuple(where(customerAtom('c')), fc.integer({ min: 0, max: 3 }))
    .map(([w, k]) => `SELECT c.tier, count(*) AS n FROM sales.customers c WHERE ${w} GROUP BY c.tier HAVING count(*) > ${k}`),
  fc.tuple(where(customerAtom('c')), where(customerAtom('b')))
    .map(([a, b]) => `SELECT c.id, b.id AS other FROM sales.customers c JOIN sales.customers b ON c.tier = b.tier AND c.id < b.id WHERE ${a} AND ${b}`),
  fc.tuple(fc.subarray([...PCOLS], { minLength: 1 }), where(paymentAtom('payments')))
    .map(([cs, w]) => `SELECT ${cs.map((c) => `payments.${c}`).join(', ')} FROM sales.payments WHERE ${w}`),
  where(customerAtom('c')).map((w) => `SELECT * FROM sales.customers c WHERE ${w}`),
  // unqualified names (an ambiguous one, like id over both tables, fails alike with and without pushdown)
  fc.tuple(fc.constantFrom('JOIN', 'LEFT JOIN', 'RIGHT JOIN'), where(fc.oneof(customerAtom('c'), paymentAtom('p'))))
    .map(([k, w]) => `SELECT name, amount FROM sales.customers c ${k} sales.payments p ON p.customer_id = c.id WHERE ${w.replace(/\b[cp]\./g, '')}`),
  where(customerAtom('c')).map((w) => `SELECT name, tier FROM sales.customers c WHERE ${w.replace(/\bc\./g, '')}`),
);

/** The generic governed-query arbitrary plus the pushdown-shaped one. */
export const lawQueryArb: fc.Arbitrary<string> = fc.oneof({ arbitrary: pushdownQueryArb, weight: 3 }, { arbitrary: queryArb, weight: 1 });
export const viewerArb: fc.Arbitrary<Viewer> = fc.constantFrom(...VIEWERS);
