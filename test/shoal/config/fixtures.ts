/** The §7 compact fleet example, read from the shared design record (never hand-copied). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DESIGN = fileURLToPath(new URL('../../../../shared/design/federation-fleet.md', import.meta.url));

export function fleetExampleYaml(): string {
  const doc = readFileSync(DESIGN, 'utf8');
  const m = /\*\*Compact fleet example\*\*[^\n]*\n```yaml\n([\s\S]*?)```/.exec(doc);
  if (!m?.[1]) throw new Error(`the compact fleet example was not found in ${DESIGN}`);
  return m[1];
}

/**
 * The example with an RLS rule of its own on the MV for the analyst (the rule orders has): as
 * written, the MV serves the analyst every region's revenue, which checkCatalog refuses
 * (CONFIG_VIEW_LAUNDERS_ROWS).
 */
export function fleetExampleGovernedYaml(): string {
  const text = fleetExampleYaml();
  if (!/rls_rules:\n( {2}- .*\n)+$/.test(text)) throw new Error('the example no longer ends with its rls_rules list');
  return `${text}  - {table_id: revenue_by_segment, role_id: analyst, filter: "region = current_setting('provisa.user_region')"}\n`;
}

/** The example without its materialized-view table (the `source_id: __derived__` entry). */
export function fleetExampleWithoutMvYaml(): string {
  const text = fleetExampleYaml();
  const start = text.indexOf('  - source_id: __derived__');
  const end = text.indexOf('relationships:');
  if (start < 0 || end < start) throw new Error('the example no longer has its __derived__ table before relationships:');
  return text.slice(0, start) + text.slice(end);
}

export const FLEET_ENV = Object.freeze({
  PROVISA_MATERIALIZE_URL: 'postgresql://mat.internal/mat',
  TENANT_DATABASE_URL: 'postgresql://registry.internal/tenant',
  PLATFORM_DATABASE_URL: 'postgresql://registry.internal/platform',
  REDIS_URL: 'redis://cache.internal:6379',
  SALES_PG_HOST: 'sales.internal',
});
