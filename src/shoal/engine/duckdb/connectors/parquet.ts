/** Parquet files, read in place with `read_parquet` (DuckDB pushes filters and projections into the scan). */
import type { CatalogEntry } from '../../catalog-entry.js';
import { literal } from '../duckdb-sql.js';
import type { ScanConnector } from './connector.js';
import { filePathFor } from './file-scan.js';

export const parquetConnector: ScanConnector = Object.freeze({
  kind: 'scan' as const,
  filePath: (entry: CatalogEntry) => filePathFor(entry, 'parquet'),
  viewBody: (entry: CatalogEntry) => `SELECT * FROM read_parquet(${literal(filePathFor(entry, 'parquet'))})`,
});
