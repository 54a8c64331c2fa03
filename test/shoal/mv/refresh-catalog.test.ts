import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openSqliteClient } from '../../../src/core/sql/sqlite-client.js';
import { refreshCatalogContract } from './refresh-catalog-contract.js';

// one file shared by "instances", as upstream's two-instance SQLite test
const dir = mkdtempSync(join(tmpdir(), 'shoal-mv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
refreshCatalogContract('SQLite', () => openSqliteClient(join(dir, 'registry.db')));
