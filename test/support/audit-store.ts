/** An audit store in a registry database of its own (the store is held to that registry's identity). */
import { SqlAuditStore } from '../../src/shoal/audit/audit-store.js';
import { openRegistry } from '../../src/shoal/registry/open-registry.js';

export async function openAuditStoreAt(url: string, options: { baseDir?: string } = {}): Promise<SqlAuditStore> {
  const registry = await openRegistry(url, options);
  try {
    return await SqlAuditStore.open(url, registry.identity, options);
  } finally {
    await registry.close();
  }
}
