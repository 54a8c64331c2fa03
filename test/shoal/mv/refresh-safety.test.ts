import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { openSqliteClient } from '../../../src/core/sql/sqlite-client.js';
import type { SqlClient } from '../../../src/core/sql/sql-client.js';
import { type SafetyRig, safetyProperty, safetyRig } from './refresh-safety.js';

describe('refresh lease safety on SQLite (simulated database clock)', () => {
  let db: SqlClient;
  let rig: SafetyRig;
  beforeAll(async () => {
    db = await openSqliteClient(':memory:');
    rig = await safetyRig(db);
  });
  afterAll(() => db.close());

  it('never two commits in one lease epoch, never a snapshot published by an expired writer (1,000 schedules)', async () => {
    await fc.assert(safetyProperty(rig), { numRuns: 1000 });
  }, 300_000);
});
