/** MySQL and MariaDB landed through `mysql2` (the DuckDB mysql extension is the ATTACH alternative). */
import type { SourcePool } from '../../../sources/source-pool.js';
import type { LandingConnector } from './connector.js';
import { relationalLanding } from './relational-landing.js';

export function mysqlLanding(pool: SourcePool): LandingConnector {
  return relationalLanding('mysql', pool);
}
