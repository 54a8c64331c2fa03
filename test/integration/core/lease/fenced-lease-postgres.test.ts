import { describe } from 'vitest';
import { openPostgresClient } from '../../../../src/core/sql/postgres-client.js';
import { service } from '../../../support/service.js';
import { leaseContract } from '../../../core/lease/lease-contract.js';

const pg = service('postgres');

describe.skipIf(pg.skip)('PostgreSQL', () => {
  leaseContract('PostgreSQL', () => openPostgresClient(pg.url!));
});
