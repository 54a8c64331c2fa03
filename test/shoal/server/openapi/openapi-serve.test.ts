/**
 * The OpenAPI document of a real `shoal serve` (from dist/: run `npm run build` first) checked
 * against that server: every documented operation is requested for real and answers with a
 * documented status and a body the documented schema accepts (validated with Ajv against the
 * served document), every registered route is documented, and errors have the documented shape.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerProcess } from '../../../support/processes.js';
import { freePort } from '../../../support/services.js';

type Json = Record<string, unknown>;

const CONFIG = `auth: {provider: none}
control_plane: {tenant_url: "sqlite:///registry.db", catalog: registry}
admin: {file_roots: ["."]}
cache: {enabled: false}
domains: [{id: d}]
sources: [{id: n-csv, type: csv, path: n.csv}]
tables:
  - {source_id: n-csv, domain_id: d, table: n, columns: [{name: n, data_type: integer}]}
  - source_id: __derived__
    domain_id: d
    table: big
    materialize: true
    view_sql: 'SELECT n FROM "n_csv"."default"."n" WHERE n > 1'
    columns: [{name: n, data_type: integer}]
roles: [{id: admin, capabilities: [admin, query_development, full_results], domain_access: ["*"]}]
`;

interface Call {
  readonly op: string;
  readonly url?: string;
  readonly body?: unknown;
  readonly status: number;
}

describe('the OpenAPI document of shoal serve, checked against it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-openapi-'));
  let server: ServerProcess;
  let doc: { paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Json> } };

  beforeAll(async () => {
    writeFileSync(join(dir, 'n.csv'), 'n\n1\n2\n3\n');
    writeFileSync(join(dir, 'm.csv'), 'm\n5\n');
    writeFileSync(join(dir, 'shoal.yaml'), CONFIG);
    const port = await freePort();
    server = await startServer(['serve', '--config', join(dir, 'shoal.yaml'), '--port', String(port)], { cwd: dir, port, env: { SHOAL_MV_TICK_MS: '0' } });
    const r = await fetch(`${server.url}/openapi.json`);
    expect(r.status).toBe(200);
    doc = (await r.json()) as typeof doc;
  }, 120_000);
  afterAll(async () => {
    await server?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  const ajv = new Ajv2020({ strict: false, allErrors: true });
  /** The documented schema of an answer, `$ref`s into the document resolved. */
  const schemaFor = (op: string, status: number): { schema?: Json; contentType: string } | undefined => {
    const [method, path] = op.split(' ') as [string, string];
    const response = doc.paths[path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')]?.[method.toLowerCase()]?.responses as Record<string, Json> | undefined;
    const r = response?.[String(status)] as { content?: Record<string, { schema?: Json }> } | undefined;
    if (!r) return undefined;
    const [contentType, media] = Object.entries(r.content ?? {})[0] ?? ['application/json', {}];
    const ref = media.schema?.$ref as string | undefined;
    const schema = ref ? doc.components.schemas[ref.split('/').pop()!] : media.schema;
    return { ...(schema ? { schema } : {}), contentType };
  };

  const send = async (call: Call): Promise<{ status: number; body: unknown; contentType: string }> => {
    const [method, path] = call.op.split(' ') as [string, string];
    const r = await fetch(`${server.url}${call.url ?? path}`, {
      method,
      headers: { 'x-provisa-role': 'admin', ...(call.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
    });
    const contentType = r.headers.get('content-type') ?? '';
    const text = await r.text();
    return { status: r.status, body: contentType.includes('json') ? JSON.parse(text) : text, contentType };
  };

  /** Answer as documented: the status is listed for the operation and the body fits its schema. */
  const expectDocumented = (op: string, got: { status: number; body: unknown; contentType: string }): void => {
    const documented = schemaFor(op, got.status);
    expect(documented, `${op} answered ${got.status}, which is not documented: ${JSON.stringify(got.body).slice(0, 300)}`).toBeDefined();
    expect(got.contentType.split(';')[0]).toBe(documented!.contentType);
    if (documented!.schema) {
      const validate = ajv.compile(documented!.schema);
      expect(validate(got.body), `${op} ${got.status}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(got.body).slice(0, 300)}`).toBe(true);
    }
  };

  it('every registered route is documented', () => {
    const ops = Object.entries(doc.paths).flatMap(([p, methods]) => Object.entries(methods).map(([m, o]) => ({ op: `${m.toUpperCase()} ${p}`, summary: o.summary })));
    expect(ops.filter((o) => o.summary === 'undocumented').map((o) => o.op)).toEqual([]);
    expect(ops.length).toBeGreaterThan(40);
  });

  it('every documented operation answers a real request with its documented status and shape', async () => {
    let tokenId = '';
    const calls: (Call | (() => Call))[] = [
      { op: 'GET /live', status: 200 },
      { op: 'GET /ready', status: 200 },
      { op: 'GET /health', status: 200 },
      { op: 'GET /metrics', status: 200 },
      { op: 'GET /openapi.json', status: 200 },
      { op: 'GET /', status: 200 },
      { op: 'GET /console/app.js', status: 200 },
      { op: 'GET /console/style.css', status: 200 },
      { op: 'GET /auth/whoami', status: 200 },
      { op: 'POST /data/sql', body: { sql: 'SELECT n FROM d.n ORDER BY n' }, status: 200 },
      { op: 'GET /data/catalog', status: 200 },
      { op: 'POST /graphql', body: { query: '{ d_n(orderBy: [{n: DESC}], first: 1) { nodes { n } } }' }, status: 200 },
      { op: 'GET /graphql', url: `/graphql?query=${encodeURIComponent('{ d_n_aggregate { count } }')}`, status: 200 },
      { op: 'GET /admin/epoch', status: 200 },
      { op: 'GET /admin/cache', status: 200 },
      { op: 'POST /admin/cache/invalidate', body: {}, status: 200 },
      { op: 'GET /admin/sources', status: 200 },
      { op: 'GET /admin/sources/:id', url: '/admin/sources/n-csv', status: 200 },
      { op: 'POST /admin/sources', body: { id: 'm-csv', type: 'csv', path: 'm.csv' }, status: 200 },
      { op: 'PUT /admin/sources/:id', url: '/admin/sources/m-csv', body: { type: 'csv', path: 'm.csv', description: 'm' }, status: 200 },
      { op: 'GET /admin/tables', status: 200 },
      { op: 'GET /admin/tables/:ref', url: '/admin/tables/d.n', status: 200 },
      { op: 'POST /admin/tables', body: { source_id: 'm-csv', domain_id: 'd', table: 'm', columns: [{ name: 'm', data_type: 'integer' }] }, status: 200 },
      { op: 'PUT /admin/tables/:ref/columns/:name', url: '/admin/tables/m/columns/k', body: { data_type: 'integer' }, status: 200 },
      { op: 'GET /admin/roles', status: 200 },
      { op: 'GET /admin/roles/:id', url: '/admin/roles/admin', status: 200 },
      { op: 'POST /admin/roles', body: { id: 'viewer', capabilities: ['query_development'], domain_access: ['d'] }, status: 200 },
      { op: 'PUT /admin/roles/:id', url: '/admin/roles/viewer', body: { capabilities: ['query_development'], domain_access: ['*'] }, status: 200 },
      { op: 'GET /admin/rls', status: 200 },
      { op: 'POST /admin/rls', body: { table_id: 'm', role_id: 'viewer', filter: 'm > 0' }, status: 200 },
      { op: 'PUT /admin/rls/:kind/:target/:role', url: '/admin/rls/table/m/viewer', body: { filter: 'm > 1' }, status: 200 },
      { op: 'DELETE /admin/rls/:kind/:target/:role', url: '/admin/rls/table/m/viewer', status: 200 },
      { op: 'DELETE /admin/roles/:id', url: '/admin/roles/viewer', status: 200 },
      { op: 'DELETE /admin/tables/:ref/columns/:name', url: '/admin/tables/m/columns/k', status: 200 },
      { op: 'DELETE /admin/tables/:ref', url: '/admin/tables/m', status: 200 },
      { op: 'DELETE /admin/sources/:id', url: '/admin/sources/m-csv', status: 200 },
      { op: 'GET /admin/mv', status: 200 },
      { op: 'POST /admin/mv/:id/refresh', url: '/admin/mv/d.big/refresh', status: 200 },
      { op: 'GET /admin/mv/:id', url: '/admin/mv/d.big', status: 200 },
      { op: 'GET /admin/mv/:id/log', url: '/admin/mv/d.big/log?limit=5', status: 200 },
      { op: 'GET /admin/audit', url: '/admin/audit?limit=5', status: 200 },
      { op: 'GET /admin/tokens', status: 200 },
      { op: 'POST /admin/tokens', body: { name: 'ci', roles: ['admin'], expires_in_days: 1 }, status: 201 },
      () => ({ op: 'DELETE /admin/tokens/:id', url: `/admin/tokens/${tokenId}`, status: 200 }),
      { op: 'GET /admin/users', status: 200 },
      { op: 'POST /admin/users', body: { username: 'ursula', password: 'correct horse battery', roles: ['admin'] }, status: 201 },
      { op: 'DELETE /admin/users/:username', url: '/admin/users/ursula', status: 200 },
    ];
    const requested = new Set<string>();
    for (const c of calls) {
      const call = typeof c === 'function' ? c() : c;
      const got = await send(call);
      expect(got.status, `${call.op}: ${JSON.stringify(got.body).slice(0, 300)}`).toBe(call.status);
      expectDocumented(call.op, got);
      if (call.op === 'POST /admin/tokens') tokenId = (got.body as { id: string }).id;
      requested.add(call.op.replace(/:([A-Za-z0-9_]+)/g, '{$1}'));
    }
    const documented = Object.entries(doc.paths).flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`));
    expect([...requested].sort()).toEqual(documented.sort());
  }, 120_000);

  it('errors answer in the documented Error shape, with a documented status', async () => {
    for (const call of [
      { op: 'POST /data/sql', body: { sql: 'SELEC 1' }, status: 400 },
      { op: 'POST /data/sql', body: { sql: 'SELECT nope FROM d.n' }, status: 400 },
      { op: 'GET /admin/sources/:id', url: '/admin/sources/nope', status: 404 },
      { op: 'POST /admin/mv/:id/refresh', url: '/admin/mv/d.big/refresh?force=maybe', status: 400 },
      { op: 'POST /graphql', body: { query: '{ d_n { nodes { nope } } }' }, status: 400 },
    ]) {
      const got = await send(call);
      expect(got.status).toBe(call.status);
      expectDocumented(call.op, got);
    }
  });
});
