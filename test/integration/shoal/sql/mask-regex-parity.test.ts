/**
 * The certified mask regex subset has one meaning on every route: for random patterns of the
 * subset (., literals, classes, greedy quantifiers, flat groups, ^…$) and random replacements,
 * the governed mask over random values — newlines, CR, unicode outside the BMP, case variants,
 * the empty string, NULL — returns the same cells on PostgreSQL (direct), MariaDB (direct, binary
 * and case-insensitive collations, with and without hostile default regex flags) and DuckDB
 * (engine), and those cells are the reference meaning computed in JavaScript. This is the measurement the subset's certification rests on.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalog, planQuery, type GovernanceCatalog } from '../../../../src/shoal/sql/index.js';
import { service } from '../../../support/service.js';
import { openDuck, sqlLiteral } from '../../../shoal/sql/duckdb-harness.js';
import { parseMaskPattern } from '../../../../src/shoal/sql/mask-regex.js';
import { referenceMask } from '../../../shoal/sql/mask-resistant.js';

const DB = 'shoal_mask_regex';
const CHARS = ['a', 'b', 'A', '@', '.', 'é', '😀', '\n', '\r', 'x', '-'];
const VALUES: readonly (string | null)[] = [
  null, '', '\n', 'a', 'ab', 'ab@x.example', 'AB@X.EXAMPLE', 'a\n@b', 'ab@x\n', 'é😀@ü', '😀😀😀', 'a\r\nb@c', 'x-y.z@a-b',
  ...fc.sample(fc.array(fc.constantFrom(...CHARS), { maxLength: 7 }).map((cs) => cs.join('')), { seed: 11, numRuns: 40 }),
];

const atomArb = fc.constantFrom('.', 'a', 'b', '@', 'é', '😀', 'x', '\\.', '\\-', '[ab]', '[^@]', '[a-z]', '[^a]', '[é😀]', '[a\\-z]', '[A-Z]');
const quantArb = fc.constantFrom('', '', '*', '+', '?', '{2}', '{1,3}', '{0,}', '{0,2}');
const qAtomArb = fc.tuple(atomArb, quantArb).map(([a, q]) => a + q);
const itemArb = fc.oneof(qAtomArb, fc.array(qAtomArb, { minLength: 1, maxLength: 3 }).map((xs) => `(${xs.join('')})`));
/** A random pattern of the certified subset, with a random replacement naming its groups. */
const maskArb = fc.array(itemArb, { maxLength: 4 }).chain((items) => {
  const groups = items.filter((i) => i.startsWith('(')).length;
  const pattern = `^${items.join('')}$`;
  const part = groups > 0 ? fc.oneof(fc.constantFrom('*', '#', 'x'), fc.integer({ min: 1, max: groups }).map((g) => `$${g}`)) : fc.constantFrom('*', '#', 'x');
  return fc.array(part, { maxLength: 4 }).map((ps) => ({ pattern, replace: ps.join('') }));
}).filter((m) => parseMaskPattern(m.pattern).ok); // patterns matching '' are refused at config load

function catalogFor(mask: { pattern: string; replace: string }, source: { id: string; type: string; binaryStrings?: boolean }, schema: string | undefined): GovernanceCatalog {
  return createCatalog({
    tables: [{
      tableKey: 'm.t', domain: 'm',
      source: { id: source.id, type: source.type, ...(source.binaryStrings ? { binaryStrings: true } : {}) },
      columns: [{ name: 'id', type: 'integer' }, { name: 'v', type: 'varchar', mask: { kind: 'regex', pattern: mask.pattern, replace: mask.replace } }],
      engineName: ['m', 't'],
      sourceName: { ...(schema ? { schema } : {}), table: 't' },
      names: [],
    }],
    roles: [{ id: 'reader', fullResults: true }],
    rls: [],
  });
}

const SQL = 'SELECT id, v FROM m.t';
const byId = (rows: readonly (readonly unknown[])[]) => [...rows].map((r) => [Number(r[0]), r[1] ?? null]).sort((a, b) => (a[0] as number) - (b[0] as number));
const insert = (q: string) => `INSERT INTO ${q} VALUES ${VALUES.map((v, i) => `(${i}, ${sqlLiteral(v)})`).join(', ')}`;

const postgres = service('postgres');
const mariadb = service('mariadb');

describe.skipIf(postgres.skip || mariadb.skip)('regex masks: one meaning on PostgreSQL, MariaDB and DuckDB', () => {
  let duck: DuckDBConnection;
  let pgc: pg.Client;
  let maria: mysql.Connection;
  beforeAll(async () => {
    duck = await openDuck();
    await duck.run('CREATE SCHEMA m; CREATE TABLE m.t (id INTEGER, v VARCHAR)');
    await duck.run(insert('m.t'));
    pgc = new pg.Client({ connectionString: postgres.url });
    await pgc.connect();
    await pgc.query(`DROP SCHEMA IF EXISTS ${DB} CASCADE; CREATE SCHEMA ${DB}; CREATE TABLE ${DB}.t (id integer, v text)`);
    await pgc.query(insert(`${DB}.t`));
    maria = await mysql.createConnection({ uri: mariadb.url!, charset: 'utf8mb4' });
    for (const [db, coll] of [[DB, 'utf8mb4_bin'], [`${DB}_ci`, 'utf8mb4_general_ci']] as const) {
      await maria.query(`DROP DATABASE IF EXISTS ${db}`);
      await maria.query(`CREATE DATABASE ${db} CHARACTER SET utf8mb4 COLLATE ${coll}`);
      await maria.query(`CREATE TABLE ${db}.t (id INT, v VARCHAR(100))`);
      await maria.query(insert(`${db}.t`));
    }
  });
  afterAll(async () => {
    duck?.closeSync();
    await pgc?.query(`DROP SCHEMA IF EXISTS ${DB} CASCADE`).catch(() => undefined);
    await pgc?.end();
    for (const db of [DB, `${DB}_ci`]) await maria?.query(`DROP DATABASE IF EXISTS ${db}`).catch(() => undefined);
    await maria?.end();
  });

  it('every route gives the reference meaning of a random certified mask over mask-resistant values', async () => {
    await fc.assert(
      fc.asyncProperty(maskArb, async (mask) => {
        const want = VALUES.map((v, i) => [i, referenceMask(v, mask.pattern, mask.replace)]);
        const engine = planQuery({ sql: SQL, role: 'reader' }, catalogFor(mask, { id: 'e', type: 'postgresql' }, DB), { route: 'engine' });
        expect(byId((await duck.runAndReadAll(engine.sql)).getRowsJS() as unknown[][]), `engine: ${engine.sql}`).toEqual(want);

        const direct = planQuery({ sql: SQL, role: 'reader' }, catalogFor(mask, { id: 'p', type: 'postgresql' }, DB));
        expect(direct.route.kind).toBe('direct');
        expect(byId((await pgc.query({ text: direct.sql, rowMode: 'array' })).rows as unknown[][]), `postgres: ${direct.sql}`).toEqual(want);

        for (const [db, binaryStrings] of [[DB, true], [`${DB}_ci`, false]] as const) {
          const m = planQuery({ sql: SQL, role: 'reader' }, catalogFor(mask, { id: 'mdb', type: 'mariadb', binaryStrings }, db));
          expect(m.route.kind, m.routeReason).toBe('direct');
          // a server whose default regex flags would change `.`, `^`/`$`, spaces and greediness
          for (const flags of ['', 'DOTALL,MULTILINE,EXTENDED,UNGREEDY']) {
            await maria.query(`SET SESSION default_regex_flags = '${flags}'`);
            const [rows] = await maria.query({ sql: m.sql, rowsAsArray: true });
            expect(byId(rows as unknown[][]), `mariadb ${db} flags ${flags}: ${m.sql}`).toEqual(want);
          }
        }
      }),
      { numRuns: 80 },
    );
  }, 600_000);
});
