/**
 * `/graphql` over HTTP on a real instance (CSV sources, a SQLite registry, access tokens), asked
 * the way any GraphQL client asks (POST `{query, variables}` with fetch; introspection read back
 * with graphql-js's own client-side `buildClientSchema`): the schema is the role's, rows are the
 * principal's, masks hold, relationships nest without a statement per row, pages are stable,
 * values never become SQL text, and a registry change shows in the schema.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type GraphQLObjectType, buildClientSchema, getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../../../src/shoal/auth/credential-admin.js';
import { loadConfig } from '../../../../src/shoal/check/load-config.js';
import { withAbsolutePaths } from '../../../../src/shoal/config/absolute-paths.js';
import { catalogOf } from '../../../../src/shoal/config/model.js';
import { ShoalInstance } from '../../../../src/shoal/instance/instance.js';
import { buildApp } from '../../../../src/shoal/server/app.js';
import type { AuditRecord } from '../../../../src/shoal/audit/audit-record.js';
import { GRAPHQL_BOUNDS } from '../../../../src/shoal/server/graphql/graphql-bounds.js';
import type { QueryService } from '../../../../src/shoal/server/query-service.js';

const CONFIG = (extraColumn = '') => `control_plane: {tenant_url: "sqlite:///registry.db"}
cache: {enabled: false}
domains: [{id: sales}]
sources: [{id: crm, type: csv, path: customers.csv}, {id: shop, type: csv, path: orders.csv}, {id: ppl, type: csv, path: people.csv}, {id: buy, type: csv, path: purchases.csv}]
tables:
  - source_id: ppl
    domain_id: sales
    table: people
    columns: [{name: id, data_type: integer, is_primary_key: true}]
  - source_id: buy
    domain_id: sales
    table: purchases
    columns: [{name: id, data_type: integer, is_primary_key: true}, {name: person_id, data_type: integer}]
  - source_id: crm
    domain_id: sales
    table: customers
    columns:
      - {name: id, data_type: integer, is_primary_key: true}
      - {name: name, data_type: varchar}
      - {name: email, data_type: varchar, unmasked_to: [admin], mask_type: constant, mask_value: "***"}
      - {name: region, data_type: varchar}
      - {name: credit, data_type: "decimal(10,2)", visible_to: [admin]}${extraColumn}
  - source_id: shop
    domain_id: sales
    table: orders
    columns:
      - {name: id, data_type: integer, is_primary_key: true}
      - {name: customer_id, data_type: integer}
      - {name: amount, data_type: "decimal(10,2)"}
      - {name: region, data_type: varchar}
relationships:
  - {id: person, source_table_id: purchases, target_table_id: people, source_column: person_id, target_column: id, cardinality: many-to-one}
  - {id: purchases, source_table_id: people, target_table_id: purchases, source_column: id, target_column: person_id, cardinality: one-to-many}
  - {id: customer, source_table_id: orders, target_table_id: customers, source_column: customer_id, target_column: id, cardinality: many-to-one}
  - {id: orders, source_table_id: customers, target_table_id: orders, source_column: id, target_column: customer_id, cardinality: one-to-many}
roles:
  - {id: admin, capabilities: [admin], domain_access: ["*"]}
  - {id: analyst, capabilities: [query_development], domain_access: [sales]}
  - {id: capped, capabilities: [query_development], domain_access: [sales], max_rows: 3}
rls_rules:
  - {table_id: customers, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
  - {table_id: orders, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}
`;

interface GqlAnswer {
  status: number;
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions: { code: string } }[];
}

describe('GraphQL over HTTP, per role', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-graphql-'));
  let instance: ShoalInstance;
  let app: FastifyInstance;
  let base: string;
  let statements = 0;
  // statements running now (from the call until their rows are read), and the most at once
  let running = 0;
  let mostRunning = 0;
  // a slower source for one test: each statement waits this long first (the request deadline still applies)
  let statementDelayMs = 0;
  let requestTimeout: number | undefined;
  const audited: AuditRecord[] = [];
  const sent: { sql: string; vars: Readonly<Record<string, string>> }[] = [];
  const token: Record<'eu' | 'us' | 'admin' | 'reserved' | 'capped', string> = { eu: '', us: '', admin: '', reserved: '', capped: '' };

  beforeAll(async () => {
    writeFileSync(join(dir, 'customers.csv'), 'id,name,email,region,credit,tier\n1,Ann,ann@eu.test,eu,10.00,gold\n2,Bob,bob@us.test,us,20.00,silver\n3,Cid,cid@eu.test,eu,30.00,\n');
    writeFileSync(join(dir, 'orders.csv'), 'id,customer_id,amount,region\n10,1,100.50,eu\n11,1,20.00,eu\n12,2,5.25,us\n13,3,7.00,eu\n14,3,1.00,eu\n');
    // 200 people × 20 purchases: enough for a relationship cycle to multiply an answer past its budget
    writeFileSync(join(dir, 'people.csv'), `id\n${Array.from({ length: 200 }, (_, i) => i + 1).join('\n')}\n`);
    writeFileSync(join(dir, 'purchases.csv'), `id,person_id\n${Array.from({ length: 4000 }, (_, i) => `${i + 1},${(i % 200) + 1}`).join('\n')}\n`);
    writeFileSync(join(dir, 'shoal.yaml'), CONFIG());
    instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0 }, hot: false, resultCache: false });
    const roles = (await instance.registry.snapshot()).catalog.roles;
    const mint = async (name: string, role: string, vars: Record<string, string>) =>
      (await issueToken(instance.auth!.store!, { name, roles: [role], vars, createdBy: 'test' }, roles)).secret;
    token.eu = await mint('eu', 'analyst', { user_region: 'eu' });
    token.us = await mint('us', 'analyst', { user_region: 'us' });
    token.admin = await mint('root', 'admin', {});
    token.capped = await mint('small', 'capped', {});
    token.reserved = await mint('clash', 'analyst', { user_region: 'eu', graphql_1: 'x' });
    // the real instance, observed: every statement a GraphQL query sends is counted, then run as is
    const observed: QueryService = Object.assign(Object.create(instance) as ShoalInstance, {
      query: async (req: Parameters<ShoalInstance['query']>[0], signal: AbortSignal) => {
        statements++;
        sent.push({ sql: req.sql, vars: req.vars });
        mostRunning = Math.max(mostRunning, ++running);
        let result;
        try {
          if (statementDelayMs > 0) {
            await new Promise<void>((resolve, reject) => {
              const t = setTimeout(resolve, statementDelayMs);
              signal.addEventListener('abort', () => {
                clearTimeout(t);
                reject(signal.reason);
              }, { once: true });
            });
          }
          result = await instance.query(req, signal);
        } catch (e) {
          running--;
          throw e;
        }
        const batches = result.batches;
        return {
          ...result,
          batches: (async function* () {
            try {
              yield* batches;
            } finally {
              running--;
            }
          })(),
        };
      },
    });
    Object.defineProperty(observed, 'requestTimeoutMs', { get: () => requestTimeout ?? instance.requestTimeoutMs });
    app = await buildApp({ service: observed, auth: instance.auth!, audit: { sink: { record: (r) => void audited.push(r) } } });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const gql = async (who: keyof typeof token, query: string, variables?: Record<string, unknown>): Promise<GqlAnswer> => {
    const r = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token[who]}` },
      body: JSON.stringify({ query, ...(variables ? { variables } : {}) }),
    });
    return { status: r.status, ...((await r.json()) as object) };
  };
  const schemaOf = async (who: keyof typeof token) => {
    const r = await gql(who, getIntrospectionQuery());
    expect(r.errors).toBeUndefined();
    return buildClientSchema(r.data as unknown as IntrospectionQuery);
  };

  it('two principals of one role read their own rows', async () => {
    const q = '{ sales_customers { nodes { id name } } }';
    const eu = await gql('eu', q);
    const us = await gql('us', q);
    expect(eu).toEqual({ status: 200, data: { sales_customers: { nodes: [{ id: 1, name: 'Ann' }, { id: 3, name: 'Cid' }] } } });
    expect(us).toEqual({ status: 200, data: { sales_customers: { nodes: [{ id: 2, name: 'Bob' }] } } });
  });

  it('a hidden column is absent from introspection and refused in a query and a filter', async () => {
    const analyst = await schemaOf('eu');
    const admin = await schemaOf('admin');
    expect(Object.keys((analyst.getType('sales_customers') as GraphQLObjectType).getFields())).toEqual(['id', 'name', 'email', 'region', 'orders']);
    expect(Object.keys((admin.getType('sales_customers') as GraphQLObjectType).getFields())).toContain('credit');
    // nowhere in the analyst's schema: not a field, an argument, an input field or a description
    const text = JSON.stringify((await gql('eu', getIntrospectionQuery())).data);
    expect(text).not.toContain('credit');
    for (const q of ['{ sales_customers { nodes { credit } } }', '{ sales_customers(where: {credit: {gt: 1}}) { nodes { id } } }', '{ sales_customers_aggregate { sum { credit } } }']) {
      const r = await gql('eu', q);
      expect(r.status).toBe(400);
      expect(r.errors![0]!.extensions.code).toBe('GRAPHQL_INVALID');
      expect(r.data).toBeUndefined();
    }
    expect((await gql('admin', '{ sales_customers(where: {credit: {gt: 15}}) { nodes { credit } } }')).data).toEqual({ sales_customers: { nodes: [{ credit: '20.00' }, { credit: '30.00' }] } });
  });

  it('a masked column keeps its type and reads masked', async () => {
    const analyst = await schemaOf('eu');
    expect(String((analyst.getType('sales_customers') as GraphQLObjectType).getFields().email!.type)).toBe('String');
    expect((await gql('eu', '{ sales_customers { nodes { email } } }')).data).toEqual({ sales_customers: { nodes: [{ email: '***' }, { email: '***' }] } });
    expect((await gql('admin', '{ sales_customers(first: 1) { nodes { email } } }')).data).toEqual({ sales_customers: { nodes: [{ email: 'ann@eu.test' }] } });
  });

  it('relationships nest both ways, one statement per level for all rows, governed at every level', async () => {
    statements = 0;
    const r = await gql('eu', `{
      sales_orders(orderBy: [{id: ASC}]) { nodes { id customer { name orders(orderBy: [{amount: DESC}], limit: 1) { id } } } }
    }`);
    expect(r.errors).toBeUndefined();
    expect(r.data).toEqual({
      sales_orders: {
        nodes: [
          { id: 10, customer: { name: 'Ann', orders: [{ id: 10 }] } },
          { id: 11, customer: { name: 'Ann', orders: [{ id: 10 }] } },
          { id: 13, customer: { name: 'Cid', orders: [{ id: 13 }] } },
          { id: 14, customer: { name: 'Cid', orders: [{ id: 13 }] } },
        ],
      },
    });
    // the root page, the customers of all four orders, the orders of both customers
    expect(statements).toBe(3);
    // one audit record for the request: what its statements read, and their rows (4 + 2 + 2)
    expect(audited.filter((a) => a.path === '/graphql').pop()).toMatchObject({ outcome: 'ok', role: 'analyst', tables: ['sales.customers', 'sales.orders'], rows: 8, route: 'engine', sql_fingerprint: expect.stringMatching(/^sha256:/) });
    // the us principal follows the same relationships to its own rows only
    expect((await gql('us', '{ sales_customers { nodes { name orders { id amount } } } }')).data).toEqual({ sales_customers: { nodes: [{ name: 'Bob', orders: [{ id: 12, amount: '5.25' }] }] } });
  });

  it('cursor pagination is stable: pages are disjoint and together the whole ordered result', async () => {
    const all = (await gql('admin', '{ sales_orders(orderBy: [{region: ASC}]) { nodes { id } pageInfo { hasNextPage } } }')).data as { sales_orders: { nodes: { id: number }[]; pageInfo: { hasNextPage: boolean } } };
    expect(all.sales_orders.pageInfo.hasNextPage).toBe(false);
    const seen: number[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      const r = await gql('admin', 'query P($after: String) { sales_orders(orderBy: [{region: ASC}], first: 2, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }', { after });
      const c = (r.data as { sales_orders: { nodes: { id: number }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } }).sales_orders;
      expect(c.nodes.length).toBeLessThanOrEqual(2);
      seen.push(...c.nodes.map((n) => n.id));
      if (!c.pageInfo.hasNextPage) break;
      after = c.pageInfo.endCursor;
    }
    // region ties (eu × 4) are broken by the primary key, so every page is the same on every request
    expect(seen).toEqual([10, 11, 13, 14, 12]);
    expect(seen).toEqual(all.sales_orders.nodes.map((n) => n.id));
    const bad = await gql('admin', '{ sales_orders(after: "bm90LWEtY3Vyc29y") { nodes { id } } }');
    expect(bad.errors![0]!.extensions.code).toBe('GRAPHQL_INVALID');
  });

  it('aggregates count and sum what the principal may read', async () => {
    const q = '{ sales_orders_aggregate { count sum { amount } max { amount id } } }';
    expect((await gql('eu', q)).data).toEqual({ sales_orders_aggregate: { count: 4, sum: { amount: '128.50' }, max: { amount: '100.50', id: 14 } } });
    expect((await gql('us', q)).data).toEqual({ sales_orders_aggregate: { count: 1, sum: { amount: '5.25' }, max: { amount: '5.25', id: 12 } } });
    expect((await gql('eu', '{ sales_orders_aggregate(where: {amount: {gte: 7}}) { count } }')).data).toEqual({ sales_orders_aggregate: { count: 3 } });
  });

  it('filters: comparisons, in, like, isNull, and/or/not; a value is never SQL text', async () => {
    const ids = async (where: string, variables?: Record<string, unknown>) => {
      const r = await gql('admin', `query Q${variables ? '($v: String)' : ''} { sales_customers(where: ${where}) { nodes { id } } }`, variables);
      expect(r.errors).toBeUndefined();
      return (r.data as { sales_customers: { nodes: { id: number }[] } }).sales_customers.nodes.map((n) => n.id);
    };
    expect(await ids('{id: {in: [1, 3]}}')).toEqual([1, 3]);
    expect(await ids('{name: {like: "%o%"}}')).toEqual([2]);
    expect(await ids('{or: [{id: {eq: 1}}, {region: {eq: "us"}}]}')).toEqual([1, 2]);
    expect(await ids('{not: {region: {eq: "eu"}}, id: {lt: 5}}')).toEqual([2]);
    expect(await ids('{and: [{id: {gte: 2}}, {id: {lte: 3}}]}')).toEqual([2, 3]);
    // a quote in a value is data: it matches nothing and breaks nothing
    expect(await ids('{name: {eq: $v}}', { v: "x' OR '1'='1" })).toEqual([]);
    expect(await ids('{name: {eq: $v}}', { v: 'Bob' })).toEqual([2]);
    // the value travelled as a session value the planner binds, not in the text
    const last = sent[sent.length - 1]!;
    expect(last.sql).not.toContain('Bob');
    expect(Object.values(last.vars)).toContain('Bob');
    // and/or/not as deep as the bound admits run (also inside a batched relationship); deeper is refused here, not by the SQL parser
    const nested = (n: number): string => (n === 0 ? '{id: {lt: 12}}' : n % 2 ? `{not: ${nested(n - 1)}}` : `{and: [${nested(n - 1)}]}`);
    const deep = await gql('admin', `{ sales_customers(where: ${nested(GRAPHQL_BOUNDS.maxWhereDepth)}, orderBy: [{id: ASC}]) { nodes { id orders(where: ${nested(GRAPHQL_BOUNDS.maxWhereDepth)}) { id } } } }`);
    expect(deep).toEqual({ status: 200, data: { sales_customers: { nodes: [{ id: 1, orders: [{ id: 10 }, { id: 11 }] }, { id: 2, orders: [] }, { id: 3, orders: [] }] } } });
    const tooDeep = await gql('admin', `{ sales_customers(where: ${nested(16)}) { nodes { id } } }`);
    expect(tooDeep.errors![0]!.extensions.code).toBe('GRAPHQL_TOO_COMPLEX');
    const nulls = await gql('admin', '{ sales_orders(where: {customer_id: {isNull: true}}) { nodes { id } } }');
    expect(nulls.data).toEqual({ sales_orders: { nodes: [] } });
  });

  it('bounds: depth, width and page size are refused with a code', async () => {
    let deep = '{ id }';
    for (let i = 0; i < 6; i++) deep = `{ id customer { orders ${deep} } }`;
    const tooDeep = await gql('admin', `{ sales_orders { nodes ${deep} } }`);
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.errors![0]!.extensions.code).toBe('GRAPHQL_TOO_COMPLEX');
    // a refusal is audited with who asked and what (no statement ran: the GraphQL text is fingerprinted)
    expect(audited.filter((a) => a.path === '/graphql').pop()).toMatchObject({ outcome: 'GRAPHQL_TOO_COMPLEX', role: 'admin', sql_fingerprint: expect.stringMatching(/^sha256:/), rows: null });
    const bigPage = await gql('admin', '{ sales_orders(first: 5000) { nodes { id } } }');
    expect(bigPage.status).toBe(200);
    expect(bigPage.errors![0]!.extensions.code).toBe('GRAPHQL_TOO_COMPLEX');
    const wide = await gql('admin', `{ ${Array.from({ length: 400 }, (_, i) => `a${i}: sales_orders { nodes { id } }`).join(' ')} }`);
    expect(wide.status).toBe(400);
    expect(wide.errors![0]!.extensions.code).toBe('GRAPHQL_TOO_COMPLEX');
  });

  it('the statements of one request run at most GRAPHQL_BOUNDS.maxParallelStatements at a time', async () => {
    mostRunning = 0;
    statements = 0;
    const r = await gql('eu', `{ ${Array.from({ length: 12 }, (_, i) => `a${i}: sales_orders(where: {id: {gte: ${10 + (i % 5)}}}, first: 1) { nodes { id } }`).join(' ')} }`);
    expect(r.errors).toBeUndefined();
    expect((r.data as Record<string, unknown>).a11).toEqual({ nodes: [{ id: 11 }] });
    expect(statements).toBe(12);
    expect(mostRunning).toBeGreaterThan(0);
    expect(mostRunning).toBeLessThanOrEqual(GRAPHQL_BOUNDS.maxParallelStatements);
  });

  it('an answer multiplied through a relationship cycle is refused whole at its row budget', async () => {
    statements = 0;
    // 200 × 20 × 1 × 20 × 1 × 20 = 1.6M rows from 6 statements of at most 4000 rows each
    const r = await gql('admin', '{ sales_people(first: 1000) { nodes { purchases { person { purchases { person { purchases { id } } } } } } } }');
    expect(r.status).toBe(400);
    expect(r.data).toBeUndefined();
    expect(r.errors).toHaveLength(1);
    expect(r.errors![0]!.extensions.code).toBe('GRAPHQL_RESULT_TOO_LARGE');
    expect(r.errors![0]!.message).toContain(`more than ${GRAPHQL_BOUNDS.maxResultRows} rows`);
    // refused when the level that passes the budget is read, before its rows are expanded: the root,
    // then two statements a level (keys go 100 to a statement) up to the fifth, never the sixth
    expect(statements).toBe(9);
    // audited with the role and the statements that did run, what they read and their rows
    expect(audited.filter((a) => a.path === '/graphql').pop()).toMatchObject({ outcome: 'GRAPHQL_RESULT_TOO_LARGE', role: 'admin', sql_fingerprint: expect.stringMatching(/^sha256:/), tables: ['sales.people', 'sales.purchases'], rows: 200 + 4000 + 200 + 4000 + 200 });
    // the same relationships within the budget answer in full
    const small = await gql('admin', '{ sales_people(first: 2) { nodes { id purchases(limit: 2, orderBy: [{id: ASC}]) { id person { id } } } } }');
    expect(small).toEqual({ status: 200, data: { sales_people: { nodes: [{ id: 1, purchases: [{ id: 1, person: { id: 1 } }, { id: 201, person: { id: 1 } }] }, { id: 2, purchases: [{ id: 2, person: { id: 2 } }, { id: 202, person: { id: 2 } }] }] } } });
   }, 120_000);

  it('request_timeout bounds the whole request, not each statement', async () => {
    // three levels one after another, each statement well inside the deadline, together past it
    statementDelayMs = 400;
    requestTimeout = 1000;
    try {
      const r = await gql('admin', '{ sales_orders(first: 1) { nodes { customer { orders { customer { id } } } } } }');
      expect(r.status).toBe(504);
      expect(r.data).toBeUndefined();
      expect(r.errors![0]!.extensions.code).toBe('QUERY_TIMEOUT');
    } finally {
      statementDelayMs = 0;
      requestTimeout = undefined;
    }
  });

  it("the role's row cap never shortens an answer silently", async () => {
    // max_rows 3: a page of 5 is cut to what the cap can tell the next page of, and says there is one
    const page = async (after: string | null) =>
      ((await gql('capped', 'query P($after: String) { sales_orders(first: 5, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }', { after })).data as {
        sales_orders: { nodes: { id: number }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
      }).sales_orders;
    const first = await page(null);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const ids = first.nodes.map((n) => n.id);
    for (let p = first; p.pageInfo.hasNextPage && ids.length < 10; ) {
      p = await page(p.pageInfo.endCursor);
      ids.push(...p.nodes.map((n) => n.id));
    }
    expect(ids).toEqual([10, 11, 12, 13, 14]);
    // nested lists of several parents come back whole: each statement stays under the cap
    const q = '{ sales_customers(first: 2, orderBy: [{id: DESC}]) { nodes { id orders(orderBy: [{id: ASC}]) { id customer { id } } } } }';
    const capped = await gql('capped', q);
    expect(capped.errors).toBeUndefined();
    expect(capped.data).toEqual({ sales_customers: { nodes: [{ id: 3, orders: [{ id: 13, customer: { id: 3 } }, { id: 14, customer: { id: 3 } }] }, { id: 2, orders: [{ id: 12, customer: { id: 2 } }] }] } });
    // one parent with more related rows than the cap: refused with a code, never cut short
    const over = await gql('capped', '{ sales_people(first: 1) { nodes { id purchases { id } } } }');
    expect(over.errors![0]!.extensions.code).toBe('GRAPHQL_ROW_CAP');
    expect(over.errors![0]!.message).toContain('3 rows');
    expect((await gql('capped', '{ sales_people(first: 1) { nodes { id purchases(limit: 2, orderBy: [{id: ASC}]) { id } } } }')).data).toEqual({ sales_people: { nodes: [{ id: 1, purchases: [{ id: 1 }, { id: 201 }] }] } });
  });

  it('errors are in GraphQL shape with the shoal code; GET serves queries too', async () => {
    const r = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token.eu}`, 'x-provisa-role': 'admin' }, body: JSON.stringify({ query: '{ __typename }' }) });
    expect(r.status).toBe(403);
    expect(((await r.json()) as GqlAnswer).errors![0]!.extensions.code).toBe('ROLE_NOT_GRANTED');
    // an identity value named like a query value would be overwritten by one: refused, never mixed
    const clash = await gql('reserved', '{ sales_customers(where: {name: {eq: "Ann"}}) { nodes { id } } }');
    expect(clash.status).toBe(500);
    expect(clash.errors![0]!.extensions.code).toBe('GRAPHQL_RESERVED_VAR');
    const syntax = await gql('eu', '{ sales_customers { ');
    expect(syntax.status).toBe(400);
    expect(syntax.errors![0]!.extensions.code).toBe('GRAPHQL_INVALID');
    const get = await fetch(`${base}/graphql?query=${encodeURIComponent('query($n: Int) { sales_customers(first: $n) { nodes { id } } }')}&variables=${encodeURIComponent('{"n":1}')}`, { headers: { authorization: `Bearer ${token.us}` } });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ data: { sales_customers: { nodes: [{ id: 2 }] } } });
  });

  it('a registry change (a new epoch) shows in the schema', async () => {
    const before = instance.epoch!;
    expect((await gql('eu', '{ sales_customers { nodes { tier } } }')).status).toBe(400);
    writeFileSync(join(dir, 'shoal.yaml'), CONFIG('\n      - {name: tier, data_type: varchar}'));
    await instance.registry.applyConfig(withAbsolutePaths(catalogOf(loadConfig({ path: join(dir, 'shoal.yaml') }).config), dir));
    await instance.refresh();
    expect(instance.epoch).toBeGreaterThan(before);
    const r = await gql('eu', '{ sales_customers { nodes { id tier } } }');
    expect(r.data).toEqual({ sales_customers: { nodes: [{ id: 1, tier: 'gold' }, { id: 3, tier: null }] } });
  });
});
