/**
 * Result column names as PostgreSQL gives them: for a corpus of unaliased select-list
 * expressions, the names the plan returns (which every route aliases its columns to) are the
 * names a real PostgreSQL gives the same expression over the same table.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShoalError } from '../../../../src/shoal/errors.js';
import { createCatalog, planQuery } from '../../../../src/shoal/sql/index.js';
import { service } from '../../../support/service.js';

const SCHEMA = 'shoal_pg_names';
const postgres = service('postgres');

/** Unaliased expressions over `t(id integer, name varchar, amount numeric(12,2), at timestamptz, d date, flag boolean)`. */
export const NAMING_CORPUS: readonly string[] = [
  'id', 't.name', 'count(*)', 'count(DISTINCT name)', 'sum(amount)', 'avg(amount)', 'min(d)', 'max(at)',
  '1 + 1', 'id * 2', '-id', "'x'", '1', 'NULL', 'true', "name || 'x'", 'NOT flag', 'id IS NULL', "name LIKE 'a%'", 'id IN (1, 2)', 'id BETWEEN 1 AND 3',
  'amount::text', 'CAST(amount AS integer)', "'1'::integer", "'1'::int", "'1'::bigint", "'1'::smallint", "'1'::numeric", "'1.5'::decimal(4,2)",
  "'x'::text", "'x'::varchar", "'x'::varchar(3)", "'1'::double precision", "'1'::real", "'1'::float", "'t'::boolean", "'2024-01-01'::date",
  "'2024-01-01'::timestamp", "'2024-01-01'::timestamptz", "'2024-01-01 00:00:00+00'::timestamp with time zone", "DATE '2024-01-01'", "TIMESTAMP '2024-01-01 00:00:00'",
  "INTERVAL '1 day'", "'1 day'::interval", "'a'::char(2)",
  'now()', 'current_timestamp', 'current_date', 'localtimestamp', 'CAST(now() AS date)', 'now()::date',
  'upper(name)', 'lower(name)', 'length(name)', 'char_length(name)', 'substr(name, 1, 2)', 'substring(name, 1, 2)', 'substring(name FROM 1 FOR 2)',
  'trim(name)', 'btrim(name)', 'ltrim(name)', 'rtrim(name)', "replace(name, 'a', 'b')", "position('a' IN name)", "strpos(name, 'a')", "lpad(name, 5, '*')",
  "concat(name, 'x')", "concat_ws('-', name, 'x')", 'left(name, 2)', 'right(name, 2)', 'initcap(name)', 'md5(name)', "split_part(name, '-', 1)",
  "regexp_replace(name, 'a', 'b')", 'reverse(name)', 'repeat(name, 2)',
  'abs(id)', 'round(amount)', 'round(amount, 1)', 'ceil(amount)', 'ceiling(amount)', 'floor(amount)', 'power(id, 2)', 'pow(id, 2)', 'sqrt(id)', 'mod(id, 2)', 'id % 2',
  'ln(amount)', 'exp(1)', 'sign(amount)', 'trunc(amount)',
  'coalesce(name, \'x\')', 'nullif(id, 1)', 'greatest(id, 2)', 'least(id, 2)',
  "CASE WHEN id > 1 THEN 'a' ELSE 'b' END", 'CASE id WHEN 1 THEN 1 END',
  "date_trunc('month', d)", 'extract(year FROM d)', "date_part('year', d)", "to_char(d, 'YYYY')",
  'row_number() OVER (ORDER BY id)', 'rank() OVER (ORDER BY id)', 'sum(amount) OVER ()', 'lag(id) OVER (ORDER BY id)',
  'string_agg(name, \',\' ORDER BY name)', 'array_agg(id ORDER BY id)', 'bool_and(flag)', 'bool_or(flag)', 'count(*) FILTER (WHERE flag)',
  'stddev(amount)', 'variance(amount)',
  '(SELECT max(x.id) FROM s.t x)', 'EXISTS (SELECT 1 FROM s.t x)', 'ARRAY[1, 2]', '(id)', '((amount))',
];

describe.skipIf(postgres.skip)('result column names match PostgreSQL', () => {
  let client: pg.Client;
  const catalog = createCatalog({
    tables: [{
      tableKey: 's.t', domain: 's', source: { id: 'pg', type: 'postgresql' },
      columns: [{ name: 'id', type: 'integer' }, { name: 'name', type: 'varchar' }, { name: 'amount', type: 'numeric(12,2)' }, { name: 'at', type: 'timestamptz' }, { name: 'd', type: 'date' }, { name: 'flag', type: 'boolean' }],
      engineName: ['s', 't'], sourceName: { schema: SCHEMA, table: 't' }, names: [],
    }],
    roles: [{ id: 'admin', fullResults: true }],
    rls: [],
  });
  beforeAll(async () => {
    client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA}`);
    await client.query(`CREATE TABLE ${SCHEMA}.t (id integer, name varchar, amount numeric(12,2), at timestamptz, d date, flag boolean)`);
    await client.query(`INSERT INTO ${SCHEMA}.t VALUES (1, 'a-b', 851.50, '2024-01-02 03:04:05+00', '2024-01-02', true)`);
  });
  afterAll(async () => {
    await client?.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await client?.end();
  });

  it('every unaliased expression of the corpus is named as PostgreSQL names it', async () => {
    const wrong: string[] = [];
    const refused: string[] = [];
    for (const e of NAMING_CORPUS) {
      const sql = `SELECT ${e} FROM s.t`;
      let plan;
      try {
        plan = planQuery({ sql, role: 'admin' }, catalog);
      } catch (err) {
        if (!(err instanceof ShoalError)) throw err;
        refused.push(`${e}: ${err.code}`);
        continue;
      }
      const r = await client.query({ text: sql.replace(/\bs\.t\b/g, `${SCHEMA}.t`), rowMode: 'array' });
      const want = r.fields.map((f) => f.name);
      const got = plan.columns.map((c) => c.name);
      if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push(`${e}: got ${JSON.stringify(got)}, PostgreSQL ${JSON.stringify(want)}`);
    }
    console.log(`refused by the gateway (not named): ${refused.join('; ') || 'none'}`);
    expect(wrong).toEqual([]);
  });
});
