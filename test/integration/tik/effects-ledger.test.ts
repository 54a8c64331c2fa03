/** The delivery ledger's contract and safety law on the test PostgreSQL (the SQLite runs are unit tests). */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openSqlClient } from '../../../src/core/sql/open-sql-client.js';
import type { SqlClient } from '../../../src/core/sql/sql-client.js';
import { service } from '../../support/service.js';
import { ledgerContract } from '../../tik/effects/ledger-contract.js';
import { ledgerFixture, type LedgerFixture } from '../../tik/effects/ledger-fixture.js';
import { checkDeliverySafety } from '../../tik/effects/ledger-property.js';

const postgres = service('postgres');

describe.skipIf(postgres.skip)('delivery ledger on PostgreSQL', () => {
  ledgerContract(() => openSqlClient(postgres.url!));
});

describe.skipIf(postgres.skip)('effect delivery safety (simulated database clock, PostgreSQL)', () => {
  let db: SqlClient;
  let f: LedgerFixture;
  beforeAll(async () => {
    db = await openSqlClient(postgres.url!);
    f = await ledgerFixture(db);
  });
  afterAll(async () => {
    await f.drop();
    await db.close();
  });

  it('never two recorded deliveries for one key, never a record by a writer whose lease expired (200 schedules)', async () => {
    await checkDeliverySafety(f, 200);
  }, 120_000);
});
