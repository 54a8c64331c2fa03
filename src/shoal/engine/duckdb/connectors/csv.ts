/** CSV files, read in place: `read_csv_auto` with header and type detection. */
import type { CatalogEntry } from '../../catalog-entry.js';
import { literal } from '../duckdb-sql.js';
import type { ScanConnector } from './connector.js';
import { filePathFor } from './file-scan.js';

export const csvConnector: ScanConnector = Object.freeze({
  kind: 'scan' as const,
  filePath: (entry: CatalogEntry) => filePathFor(entry, 'csv'),
  viewBody: (entry: CatalogEntry) => `SELECT * FROM read_csv_auto(${literal(filePathFor(entry, 'csv'))}, header = true)`,
});
