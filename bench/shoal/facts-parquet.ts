import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

/**
 * The benches' fact table: `rows` rows (id, region, amount, email) written to `dir/facts.parquet`,
 * and a raw in-memory DuckDB (2 threads) with a `facts` view over the same file — the baseline
 * the gateway is measured against.
 */
export async function factsParquet(dir: string, rows: number): Promise<{ readonly parquet: string; readonly rc: DuckDBConnection }> {
  const parquet = join(dir, 'facts.parquet');
  const raw = await DuckDBInstance.create(':memory:', { threads: '2' });
  const rc = await raw.connect();
  await rc.run(`COPY (SELECT i AS id, ['eu','us','apac'][1 + i % 3] AS region, (i % 1000) / 10.0 AS amount,
                'user' || i || '@example.com' AS email FROM range(${rows}) t(i)) TO '${parquet}' (FORMAT parquet)`);
  await rc.run(`CREATE VIEW facts AS SELECT * FROM read_parquet('${parquet}')`);
  return { parquet, rc };
}
