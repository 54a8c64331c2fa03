import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openPostgresClient } from '../../../../src/core/sql/postgres-client.js';
import type { SqlClient } from '../../../../src/core/sql/sql-client.js';
import { service } from '../../../support/service.js';
import { refreshCatalogContract } from '../../../shoal/mv/refresh-catalog-contract.js';
import { type SafetyRig, safetyProperty, safetyRig } from '../../../shoal/mv/refresh-safety.js';

const pg = service('postgres');

describe.skipIf(pg.skip)('PostgreSQL refresh catalog', () => {
  refreshCatalogContract('PostgreSQL', () => openPostgresClient(pg.url!));

  describe('lease safety on a simulated PostgreSQL clock', () => {
    let db: SqlClient;
    let rig: SafetyRig;
    beforeAll(async () => {
      db = await openPostgresClient(pg.url!);
      rig = await safetyRig(db);
    });
    afterAll(async () => {
      await db.run(`DELETE FROM materialized_views WHERE id LIKE ?`, [`${rig.prefix}-%`]);
      await db.exec(`DROP TABLE ${rig.clock.table}`);
      await db.close();
    });
    it('never two commits in one lease epoch, never a snapshot published by an expired writer (1,000 schedules)', async () => {
      await fc.assert(safetyProperty(rig), { numRuns: 1000 });
    }, 600_000);
  });
});
