/** Which DuckDB connector serves a catalog entry: by mechanism, then by source type. */
import type { CatalogEntry } from '../catalog-entry.js';
import type { SourcePool } from '../../sources/source-pool.js';
import { ShoalError } from '../../errors.js';
import { attachConnector } from './connectors/attach.js';
import type { DuckDbConnector, LandingConnector } from './connectors/connector.js';
import { csvConnector } from './connectors/csv.js';
import { jsonConnector } from './connectors/json.js';
import { mysqlLanding } from './connectors/mysql-landing.js';
import { parquetConnector } from './connectors/parquet.js';
import { postgresLanding } from './connectors/postgres-landing.js';
import { sqliteLanding } from './connectors/sqlite-landing.js';
import { tikStoreLanding } from './connectors/tik-store.js';

export class DuckDbConnectors {
  private readonly landings: Readonly<Record<'postgresql' | 'mysql' | 'sqlite' | 'tik', LandingConnector>>;

  /** @param clock epoch milliseconds, for sources whose rows are derived at `now` (tik). */
  constructor(pool: SourcePool, clock: () => number) {
    this.landings = {
      postgresql: postgresLanding(pool),
      mysql: mysqlLanding(pool),
      sqlite: sqliteLanding(pool),
      tik: tikStoreLanding(clock),
    };
  }

  for(entry: CatalogEntry): DuckDbConnector {
    const t = entry.source.type;
    if (entry.mechanism === 'attach') return attachConnector;
    if (entry.mechanism === 'scan') {
      if (t === 'csv') return csvConnector;
      if (t === 'parquet') return parquetConnector;
      if (t === 'json') return jsonConnector;
    } else if (t === 'postgresql' || t === 'mysql' || t === 'sqlite' || t === 'tik') {
      return this.landings[t];
    }
    throw new ShoalError('SOURCE_TYPE_UNSUPPORTED', `no DuckDB connector reads source "${entry.source.id}" of type ${t} by ${entry.mechanism}`, {
      where: `sources.${entry.source.id}`,
      hint: 'check the source type',
    });
  }
}
