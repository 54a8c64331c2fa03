import { afterAll, beforeAll, describe, it } from 'vitest';
import { openSqliteClient } from '../../../src/core/sql/sqlite-client.js';
import type { SqlClient } from '../../../src/core/sql/sql-client.js';
import { ledgerFixture, type LedgerFixture } from './ledger-fixture.js';
import { checkDeliverySafety } from './ledger-property.js';

describe('effect delivery safety (simulated database clock, SQLite)', () => {
  let db: SqlClient;
  let f: LedgerFixture;
  beforeAll(async () => {
    db = await openSqliteClient(':memory:');
    f = await ledgerFixture(db);
  });
  afterAll(() => db.close());

  it('never two recorded deliveries for one key, never a record by a writer whose lease expired (1,000 schedules)', async () => {
    await checkDeliverySafety(f, 1000);
  });
});
