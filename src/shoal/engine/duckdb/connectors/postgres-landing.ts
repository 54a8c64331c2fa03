/** PostgreSQL landed through `pg` (the DuckDB postgres extension is the ATTACH alternative). */
import type { SourcePool } from '../../../sources/source-pool.js';
import type { LandingConnector } from './connector.js';
import { relationalLanding } from './relational-landing.js';

export function postgresLanding(pool: SourcePool): LandingConnector {
  return relationalLanding('postgresql', pool);
}
