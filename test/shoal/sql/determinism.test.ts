import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admitMaterializedView, checkDeterminism, checkViewDeterminism } from '../../../src/shoal/sql/index.js';

const codes = (sql: string) => checkDeterminism(sql).issues.map((i) => i.code);

describe('checkDeterminism (study §7)', () => {
  it.each([
    ['SELECT now() AS t', 'VOLATILE'],
    ['SELECT current_timestamp AS t', 'VOLATILE'],
    ['SELECT current_timestamp(3) AS t', 'VOLATILE'],
    ['SELECT current_date AS t', 'VOLATILE'],
    ['SELECT random() AS r', 'VOLATILE'],
    ['SELECT gen_random_uuid() AS u', 'VOLATILE'],
    ['SELECT clock_timestamp() AS t', 'VOLATILE'],
    ["SELECT current_setting('provisa.region') AS r", 'VOLATILE'],
    ['SELECT a FROM t LIMIT 5', 'LIMIT_NO_ORDER'],
    ['SELECT a FROM t OFFSET 5', 'LIMIT_NO_ORDER'],
    ['SELECT a FROM t FETCH FIRST 3 ROWS ONLY', 'LIMIT_NO_ORDER'],
    ['SELECT a FROM (SELECT a FROM t LIMIT 3) s ORDER BY a', 'LIMIT_NO_ORDER'],
    ['WITH c AS (SELECT a FROM t LIMIT 3) SELECT a FROM c', 'LIMIT_NO_ORDER'],
    ['SELECT a FROM t WHERE a IN (SELECT b FROM u LIMIT 1)', 'LIMIT_NO_ORDER'],
    ['SELECT a FROM t UNION SELECT b FROM u LIMIT 3', 'LIMIT_NO_ORDER'],
    ['SELECT row_number() OVER () AS r FROM t', 'WINDOW_NO_ORDER'],
    ['SELECT rank() OVER (PARTITION BY y) AS r FROM t', 'WINDOW_NO_ORDER'],
    ['SELECT first_value(x) OVER w AS f FROM t WINDOW w AS (PARTITION BY y)', 'WINDOW_NO_ORDER'],
    ["SELECT string_agg(x, ',') AS s FROM t", 'AGG_ORDER'],
    ['SELECT array_agg(x) AS s FROM t', 'AGG_ORDER'],
    ['SELECT any_value(x) AS s FROM t', 'ARBITRARY'],
    ['SELECT count(*) AS n FROM t TABLESAMPLE BERNOULLI (50)', 'SAMPLE'],
    ['SELECT DISTINCT ON (a) a, b FROM t', 'DISTINCT_ON_NO_ORDER'],
    ['SELECT DISTINCT ON (a) a, b FROM t ORDER BY a', 'DISTINCT_ON_PARTIAL_ORDER'],
  ])('flags %s', (sql, code) => {
    const r = checkDeterminism(sql);
    expect(r.ok).toBe(false);
    expect(r.issues.map((i) => i.code)).toContain(code);
  });

  it.each([
    'SELECT a, sum(b) AS s FROM t GROUP BY a',
    'SELECT sum(x) OVER () AS s FROM t',
    'SELECT lag(x) OVER w AS l FROM t WINDOW w AS (PARTITION BY y ORDER BY z, x)',
    'SELECT lag(x) OVER (w ORDER BY z, x) AS l FROM t WINDOW w AS (PARTITION BY y)',
    "SELECT string_agg(x, ',' ORDER BY x) AS s FROM t",
    'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS p FROM t',
    'SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b',
    'SELECT a FROM t ORDER BY a LIMIT 5',
    "SELECT s.segment, o.region, SUM(o.amount) AS revenue FROM sales_pg.public.orders o JOIN segments_csv.default.customer_segments s ON o.customer_id = s.customer_id GROUP BY s.segment, o.region",
  ])('admits %s', (sql) => {
    expect(codes(sql)).toEqual([]);
    expect(checkDeterminism(sql).ok).toBe(true);
  });

  it('finds a volatile call anywhere, and rejects non-queries', () => {
    const r = checkDeterminism('SELECT a,\n  now() AS t FROM x');
    expect(r.issues[0]?.code).toBe('VOLATILE');
    expect(() => checkDeterminism('DELETE FROM t')).toThrow(expect.objectContaining({ code: 'SQL_NOT_SELECT' }));
    expect(() => checkDeterminism('SELEC 1')).toThrow(expect.objectContaining({ code: 'SQL_SYNTAX' }));
  });
});

/** Rejected view SQL, one row per rule of federation-fleet.md §3.1 and blind spot of §3.3, with the rule's code. */
const REJECTED: readonly (readonly [string, string])[] = [
  // §3.1 volatile functions (upstream's list), call and keyword forms
  ['SELECT now() AS t FROM t', 'VOLATILE'],
  ['SELECT current_timestamp AS t FROM t', 'VOLATILE'],
  ['SELECT CURRENT_TIMESTAMP(3) AS t FROM t', 'VOLATILE'],
  ['SELECT current_date AS d FROM t', 'VOLATILE'],
  ['SELECT current_time AS d FROM t', 'VOLATILE'],
  ['SELECT localtimestamp AS d FROM t', 'VOLATILE'],
  ['SELECT localtime AS d FROM t', 'VOLATILE'],
  ['SELECT random() AS r FROM t', 'VOLATILE'],
  ['SELECT rand() AS r FROM t', 'VOLATILE'],
  ['SELECT uuid() AS u FROM t', 'VOLATILE'],
  ['SELECT gen_random_uuid() AS u FROM t', 'VOLATILE'],
  ['SELECT uuid_generate_v4() AS u FROM t', 'VOLATILE'],
  ['SELECT newid() AS u FROM t', 'VOLATILE'],
  ['SELECT sysdate() AS u FROM t', 'VOLATILE'],
  ['SELECT getdate() AS u FROM t', 'VOLATILE'],
  ['SELECT a FROM t WHERE created_at > NOW()', 'VOLATILE'],
  // §3.1 unordered LIMIT anywhere
  ['SELECT a FROM t LIMIT 5', 'LIMIT_NO_ORDER'],
  ['SELECT a FROM (SELECT a FROM t LIMIT 3) s ORDER BY a', 'LIMIT_NO_ORDER'],
  ['WITH c AS (SELECT a FROM t LIMIT 3) SELECT a FROM c', 'LIMIT_NO_ORDER'],
  // §3.3 blind spots
  ['SELECT a FROM t UNION SELECT b FROM u LIMIT 3', 'LIMIT_NO_ORDER'],
  ['SELECT a FROM t EXCEPT SELECT b FROM u FETCH FIRST 3 ROWS ONLY', 'LIMIT_NO_ORDER'],
  ['SELECT a FROM t OFFSET 10', 'LIMIT_NO_ORDER'],
  ['SELECT a, b FROM t ORDER BY a LIMIT 5', 'LIMIT_ORDER_NOT_TOTAL'],
  ['SELECT a, b FROM t UNION ALL SELECT c, d FROM u ORDER BY 1 LIMIT 5', 'LIMIT_ORDER_NOT_TOTAL'],
  ['SELECT a, sum(b) AS s FROM t GROUP BY a ORDER BY s LIMIT 3', 'LIMIT_ORDER_NOT_TOTAL'],
  ['SELECT clock_timestamp() AS t FROM t', 'VOLATILE'],
  ['SELECT statement_timestamp() AS t FROM t', 'VOLATILE'],
  ['SELECT transaction_timestamp() AS t FROM t', 'VOLATILE'],
  ['SELECT timeofday() AS t FROM t', 'VOLATILE'],
  ['SELECT setseed(0.5) AS s FROM t', 'VOLATILE'],
  ['SELECT random(10) AS r FROM t', 'VOLATILE'],
  ['SELECT current_user AS u FROM t', 'VOLATILE'],
  ['SELECT session_user AS u FROM t', 'VOLATILE'],
  ['SELECT user AS u FROM t', 'VOLATILE'],
  ['SELECT current_role AS u FROM t', 'VOLATILE'],
  ["SELECT a FROM t WHERE region = current_setting('provisa.user_region')", 'VOLATILE'],
  ["SELECT nextval('s') AS id FROM t", 'VOLATILE'],
  ['SELECT count(*) AS n FROM t TABLESAMPLE SYSTEM (10)', 'SAMPLE'],
  ['SELECT row_number() OVER () AS r, a FROM t', 'WINDOW_NO_ORDER'],
  ['SELECT lead(a) OVER (PARTITION BY b) AS r FROM t', 'WINDOW_NO_ORDER'],
  ['SELECT lag(x) OVER w AS l FROM t WINDOW w AS (PARTITION BY y ORDER BY z)', 'WINDOW_ORDER_NOT_TOTAL'],
  ['SELECT lag(x) OVER (w ORDER BY z) AS l FROM t WINDOW w AS (PARTITION BY y)', 'WINDOW_ORDER_NOT_TOTAL'],
  ['SELECT row_number() OVER (ORDER BY a) AS r, b FROM t', 'WINDOW_ORDER_NOT_TOTAL'],
  ['SELECT first_value(b) OVER (PARTITION BY a ORDER BY c) AS f FROM t', 'WINDOW_ORDER_NOT_TOTAL'],
  ['SELECT sum(x) OVER (ORDER BY a ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS s, a FROM t', 'WINDOW_ORDER_NOT_TOTAL'],
  ['SELECT array_agg(a) AS xs FROM t', 'AGG_ORDER'],
  ["SELECT string_agg(a, ',') AS xs FROM t", 'AGG_ORDER'],
  ['SELECT json_agg(a) AS xs FROM t', 'AGG_ORDER'],
  ["SELECT listagg(a, ',') AS xs FROM t", 'AGG_ORDER'],
  ['SELECT arbitrary(a) AS x FROM t', 'ARBITRARY'],
  ['SELECT any_value(a) AS x FROM t GROUP BY b', 'ARBITRARY'],
  ['SELECT DISTINCT ON (a) a, b FROM t', 'DISTINCT_ON_NO_ORDER'],
  ["SELECT http_get('https://example.com/rates') AS body FROM t", 'EXTERNAL_CALL'],
  ['SELECT udfs.score(a) AS s FROM t', 'EXTERNAL_CALL'],
];

/** Admitted view SQL for every rule's near miss. */
const ADMITTED: readonly string[] = [
  'SELECT a, b FROM t',
  "SELECT a FROM t WHERE created_at > TIMESTAMP '2026-01-01 00:00:00'",
  'SELECT a, b FROM t ORDER BY a, b LIMIT 5',
  'SELECT a, b FROM t ORDER BY b DESC, 1 LIMIT 5',
  'SELECT a, sum(b) AS s FROM t GROUP BY a ORDER BY a LIMIT 3',
  'SELECT a AS x FROM t ORDER BY x LIMIT 3',
  'SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 LIMIT 3',
  'SELECT a FROM t ORDER BY a OFFSET 10',
  'SELECT a FROM (SELECT a FROM t ORDER BY a LIMIT 3) s',
  'SELECT sum(a) OVER () AS total, a FROM t',
  'SELECT row_number() OVER (ORDER BY a) AS r, a FROM t',
  'SELECT rank() OVER (ORDER BY a) AS r, b FROM t',
  'SELECT sum(x) OVER (ORDER BY a) AS s, b FROM t',
  'SELECT sum(x) OVER (ORDER BY a, x ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS s, a FROM t',
  'SELECT first_value(b) OVER (PARTITION BY a ORDER BY c, b) AS f, a FROM t',
  'SELECT array_agg(a ORDER BY a) AS xs FROM t',
  "SELECT string_agg(a, ',' ORDER BY a) AS xs FROM t",
  'SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b',
  'SELECT "user" AS u FROM t',
  'SELECT t.user AS u FROM t',
  'SELECT lower(a) AS l, coalesce(b, 0) AS c, count(*) AS n FROM t GROUP BY lower(a), coalesce(b, 0)',
  'WITH c AS (SELECT a FROM t) SELECT a FROM c',
];

describe('view determinism, both tiers (federation-fleet.md §3)', () => {
  it.each(REJECTED)('%s is non-deterministic (%s): distributed rejected, shared admitted with the reason', (sql, code) => {
    const v = checkViewDeterminism(sql);
    expect(v.ok).toBe(false);
    expect(v.issues.map((i) => i.code)).toContain(code);
    expect(v.reason).toMatch(/^non-deterministic/);
    const distributed = admitMaterializedView('distributed', sql);
    expect(distributed).toMatchObject({ ok: false, deterministic: false });
    expect(distributed.reason).toContain('never converge');
    expect(distributed.reason).toContain("use consistency 'shared'");
    const shared = admitMaterializedView('shared', sql);
    expect(shared).toMatchObject({ ok: true, deterministic: false });
    expect(shared.reason).toContain(v.reason);
  });

  it.each(ADMITTED)('%s is deterministic: admitted on both tiers', (sql) => {
    expect(checkViewDeterminism(sql)).toEqual({ ok: true, reason: null, issues: [], parsed: true });
    expect(admitMaterializedView('distributed', sql)).toEqual({ ok: true, deterministic: true, reason: 'deterministic' });
    expect(admitMaterializedView('shared', sql)).toEqual({ ok: true, deterministic: true, reason: 'deterministic' });
  });

  it.each(['SELEC a FROM t', 'SELECT a FROM', 'DELETE FROM t', 'SELECT 1; SELECT 2', 'not sql at all', ''])(
    'fails closed on %j: it cannot be parsed as one query',
    (sql) => {
      const v = checkViewDeterminism(sql);
      expect(v.ok).toBe(false);
      expect(v.reason).toMatch(/^view_sql cannot be parsed/);
      const text = sql || 'SELEC';
      expect(admitMaterializedView('distributed', text)).toMatchObject({ ok: false, deterministic: false });
      expect(admitMaterializedView('shared', text)).toMatchObject({ ok: false, deterministic: false });
      expect(admitMaterializedView('shared', text).reason).toMatch(/^view_sql cannot be parsed/);
    },
  );

  it('a join-pattern MV (empty view_sql) is deterministic by construction', () => {
    expect(admitMaterializedView('distributed', '')).toMatchObject({ ok: true, deterministic: true });
    expect(admitMaterializedView('distributed', null)).toMatchObject({ ok: true, deterministic: true });
  });

  it('the tier is a closed set', () => {
    expect(() => admitMaterializedView('local' as 'shared', 'SELECT 1')).toThrow(expect.objectContaining({ code: 'MV_BAD_CONSISTENCY' }));
  });

  it('an ORDER BY on a declared unique key is total (under LIMIT and in a window)', () => {
    const sql = 'SELECT id, name FROM customers ORDER BY id LIMIT 10';
    expect(checkViewDeterminism(sql).issues.map((i) => i.code)).toEqual(['LIMIT_ORDER_NOT_TOTAL']);
    const uniqueKeys = (t: string) => (t === 'customers' ? [['id']] : []);
    expect(checkViewDeterminism(sql, { uniqueKeys }).ok).toBe(true);
    expect(checkViewDeterminism('SELECT id, name FROM customers ORDER BY name LIMIT 10', { uniqueKeys }).ok).toBe(false);
    expect(checkViewDeterminism('SELECT c.id, o.n FROM customers c JOIN orders o ON o.c = c.id ORDER BY c.id LIMIT 10', { uniqueKeys }).ok).toBe(false);
    const win = 'SELECT row_number() OVER (ORDER BY id) AS r, name FROM customers';
    expect(checkViewDeterminism(win).issues.map((i) => i.code)).toEqual(['WINDOW_ORDER_NOT_TOTAL']);
    expect(checkViewDeterminism(win, { uniqueKeys }).ok).toBe(true);
  });

  it('the reason names the first issue and where it is', () => {
    expect(checkViewDeterminism('SELECT a,\n  array_agg(b) AS r FROM t').reason).toMatch(/^non-deterministic \(AGG_ORDER\): array_agg\(\).* at line 2, column \d+$/);
    expect(checkViewDeterminism('SELECT random() AS r FROM t').reason).toBe('non-deterministic (VOLATILE): random changes between runs');
  });
});

describe('determinism laws', () => {
  it('the check is total and fails closed: any text gives a verdict, never a throw', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.constantFrom(' ', '\n'), fc.constantFrom(...ADMITTED).map((s) => s.slice(0, -3))), (text) => {
        const v = checkViewDeterminism(text);
        expect(typeof v.ok).toBe('boolean');
        if (!v.parsed) expect(v.ok).toBe(false);
        if (!v.ok) expect(v.reason).toBeTruthy();
        // blank view_sql means a join-pattern MV, which admission treats as deterministic
        if (text.trim() !== '') expect(admitMaterializedView('distributed', text).ok).toBe(v.ok);
        if (text.trim() !== '') expect(admitMaterializedView('shared', text).ok).toBe(v.parsed);
      }),
      { numRuns: 300 },
    );
  });

  it('adding a volatile output column to a deterministic view makes it non-deterministic; shared still admits it', () => {
    const volatile = ['now()', 'random()', 'current_user', 'gen_random_uuid()', 'clock_timestamp()'];
    fc.assert(
      fc.property(fc.constantFrom(...ADMITTED.filter((s) => /^SELECT [a-z]/.test(s) && !/ UNION /.test(s))), fc.constantFrom(...volatile), (sql, fn) => {
        const tainted = sql.replace(/^SELECT /, `SELECT ${fn} AS zz, `);
        expect(checkViewDeterminism(tainted).issues.map((i) => i.code)).toContain('VOLATILE');
        expect(admitMaterializedView('distributed', tainted).ok).toBe(false);
        expect(admitMaterializedView('shared', tainted)).toMatchObject({ ok: true, deterministic: false });
      }),
      { numRuns: 100 },
    );
  });
});
