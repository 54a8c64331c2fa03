/** JSON and newline-delimited JSON files, read in place with `read_json_auto`. */
import type { CatalogEntry } from '../../catalog-entry.js';
import { literal } from '../duckdb-sql.js';
import type { ScanConnector } from './connector.js';
import { filePathFor } from './file-scan.js';

export const jsonConnector: ScanConnector = Object.freeze({
  kind: 'scan' as const,
  filePath: (entry: CatalogEntry) => filePathFor(entry, 'json'),
  viewBody: (entry: CatalogEntry) => `SELECT * FROM read_json_auto(${literal(filePathFor(entry, 'json'))})`,
});
