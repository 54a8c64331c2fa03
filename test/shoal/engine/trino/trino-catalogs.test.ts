/**
 * The statements and conversions of the Trino engine that need no Trino: the CREATE CATALOG of
 * Trino's own postgresql/mysql connectors (tested by the statement generated: the plugins cannot
 * be fetched here), the hive catalog, reachability per (engine, source type), lossless numbers
 * and cell rendering.
 */
import { describe, expect, it } from 'vitest';
import { catalogEntryFor } from '../../../../src/shoal/engine/catalog-entry.js';
import { reachFor, reachabilityTable } from '../../../../src/shoal/engine/reachability.js';
import { JsonNumber, parseLosslessJson } from '../../../../src/shoal/engine/trino/lossless-json.js';
import { connectorCatalogStatement, hiveCatalogStatement } from '../../../../src/shoal/engine/trino/trino-catalogs.js';
import { engineTypeName, parquetPlanFor, toCell } from '../../../../src/shoal/engine/trino/trino-types.js';

const pg = catalogEntryFor(
  { source_id: 'sales-pg', domain_id: 'sales', table: 'orders' },
  { id: 'sales-pg', type: 'postgresql', host: 'db.internal', port: 5433, database: 'shop', username: 'reader', password: '${env:SALES_PW}', attach: true },
);
const my = catalogEntryFor(
  { source_id: 'crm', domain_id: 'crm', table: 'leads' },
  { id: 'crm', type: 'mysql', host: 'my.internal', database: 'crm', username: 'r', password: '${env:CRM_PW}', attach: true },
);

describe("CREATE CATALOG for Trino's own connectors", () => {
  it('postgresql: the JDBC URL names the database; the password is resolved now and only the redacted form can be shown', () => {
    const s = connectorCatalogStatement(pg, 'postgresql', { SALES_PW: "p'w" });
    expect(s.text).toBe(`CREATE CATALOG "sales_pg" USING postgresql WITH ("connection-url" = 'jdbc:postgresql://db.internal:5433/shop', "connection-user" = 'reader', "connection-password" = 'p''w')`);
    expect(s.redacted).toBe(`CREATE CATALOG "sales_pg" USING postgresql WITH ("connection-url" = 'jdbc:postgresql://db.internal:5433/shop', "connection-user" = 'reader', "connection-password" = '***')`);
  });

  it('mysql: every database is a schema, the default port is 3306', () => {
    expect(connectorCatalogStatement(my, 'mysql', { CRM_PW: 'x' }).redacted).toBe(
      `CREATE CATALOG "crm" USING mysql WITH ("connection-url" = 'jdbc:mysql://my.internal:3306', "connection-user" = 'r', "connection-password" = '***')`,
    );
  });

  it('an unset secret is SECRET_UNRESOLVED, not a catalog without a password', () => {
    expect(() => connectorCatalogStatement(pg, 'postgresql', {})).toThrow(expect.objectContaining({ code: 'SECRET_UNRESOLVED' }));
  });

  it('the hive catalog reads the scratch area through the local file system, at microsecond precision', () => {
    expect(hiveCatalogStatement('files', '/shared/scratch')).toBe(
      `CREATE CATALOG "files" USING hive WITH ("hive.metastore" = 'file', "hive.metastore.catalog.dir" = 'local:///metastore/files', "fs.native-local.enabled" = 'true', "local.location" = '/shared/scratch', "hive.timestamp-precision" = 'MICROSECONDS')`,
    );
  });
});

describe('reachability per (engine, source type)', () => {
  it('is explicit for every combination', () => {
    const t = reachabilityTable();
    expect(t).toHaveLength(28);
    const of = (engine: string, type: string, attach: boolean) => t.find((r) => r.engine === engine && r.type === type && r.attach === attach)?.reach;
    expect(of('trino', 'csv', false)).toBe('hive-file');
    expect(of('trino', 'postgresql', false)).toBe('land');
    expect(of('trino', 'tik', false)).toBe('land');
    expect(of('trino', 'postgresql', true)).toBe('unreachable');
    expect(of('trino', 'sqlite', true)).toBe('unreachable');
    expect(of('duckdb', 'sqlite', true)).toBe('attach');
    expect(of('duckdb', 'parquet', false)).toBe('scan');
  });

  it("attach: true reaches Trino's connector only when the deployment has the plugin", () => {
    expect(reachFor('trino', 'postgresql', true, { connectors: ['postgresql'] })).toEqual({ kind: 'connector', connector: 'postgresql' });
    expect(reachFor('trino', 'mysql', true, { connectors: ['postgresql'] }).kind).toBe('unreachable');
  });
});

describe('Trino results in the engine contract', () => {
  it('keeps integers beyond 2^53 exact', () => {
    const v = parseLosslessJson('{"data":[[9007199254740993,-1.5e3,"x\\"y",null,true]]}') as { data: unknown[][] };
    expect(v.data[0]![0]).toEqual(new JsonNumber('9007199254740993'));
    expect(toCell(v.data[0]![0] as JsonNumber, 'bigint')).toBe('9007199254740993');
    expect(toCell(v.data[0]![1] as JsonNumber, 'double')).toBe(-1500);
    expect(v.data[0]!.slice(2)).toEqual(['x"y', null, true]);
  });

  it('renders timestamps and decimals as the DuckDB engine does, and names types alike', () => {
    expect(toCell('2024-01-02 03:04:05.120000', 'timestamp(6)')).toBe('2024-01-02 03:04:05.12');
    expect(toCell('2024-01-02 03:04:05.000000', 'timestamp(6)')).toBe('2024-01-02 03:04:05');
    expect(toCell('2024-01-02 03:04:05.000000 UTC', 'timestamp(6) with time zone')).toBe('2024-01-02 03:04:05+00');
    expect(toCell(new JsonNumber('12.50'), 'decimal(12, 2)')).toBe('12.50');
    expect(engineTypeName('decimal(12, 2)')).toBe('DECIMAL(12,2)');
    expect(engineTypeName('varchar(5)')).toBe('VARCHAR');
    expect(engineTypeName('array(integer)')).toBe('INTEGER[]');
  });

  it('writes 128-bit and unsigned integers to Parquet in a type Trino reads exactly', () => {
    expect(parquetPlanFor('HUGEINT')).toEqual({ cast: 'DECIMAL(38,0)', trino: 'decimal(38, 0)' });
    expect(parquetPlanFor('UBIGINT')).toEqual({ cast: 'DECIMAL(20,0)', trino: 'decimal(20, 0)' });
    expect(parquetPlanFor('DECIMAL(13,2)')).toEqual({ trino: 'decimal(13, 2)' });
  });
});
