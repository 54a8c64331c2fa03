import { describe } from 'vitest';
import { openSqliteClient } from '../../../src/core/sql/sqlite-client.js';
import { ledgerContract } from './ledger-contract.js';

describe('delivery ledger on SQLite', () => {
  ledgerContract(() => openSqliteClient(':memory:'));
});
