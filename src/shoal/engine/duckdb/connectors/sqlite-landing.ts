/** SQLite files landed through `better-sqlite3` (the DuckDB sqlite extension is the ATTACH alternative). */
import type { SourcePool } from '../../../sources/source-pool.js';
import type { LandingConnector } from './connector.js';
import { relationalLanding } from './relational-landing.js';

export function sqliteLanding(pool: SourcePool): LandingConnector {
  return relationalLanding('sqlite', pool);
}
