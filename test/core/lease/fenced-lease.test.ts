import { openSqliteClient } from '../../../src/core/sql/sqlite-client.js';
import { leaseContract } from './lease-contract.js';

leaseContract('SQLite', () => openSqliteClient(':memory:'));
