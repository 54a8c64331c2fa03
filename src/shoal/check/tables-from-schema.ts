/**
 * A source's catalog as config: `tables:` entries exactly in the config's shape (source_id,
 * domain_id, schema when it is not the source's default, table, columns with name, data_type and
 * is_primary_key), ready to paste into a config file and trim.
 */
import type { SourceConfig } from '../config/model.js';
import type { SourceSchema } from '../sources/source-schema.js';

export interface TableEntry {
  source_id: string;
  domain_id: string;
  schema?: string;
  table: string;
  columns: { name: string; data_type: string; is_primary_key?: true }[];
}

/** The schema to write: omitted where the registered default (`default`) already means it at the source. */
function schemaKey(source: SourceConfig, schema: string): string | undefined {
  if (source.type === 'postgresql') return schema === 'public' ? undefined : schema;
  if (source.type === 'mysql' || source.type === 'mariadb') return source.database !== undefined && schema === source.database ? undefined : schema;
  return undefined; // SQLite has one schema; files and tik have none
}

export function tablesFromSchema(source: SourceConfig, schema: SourceSchema, domainId: string): TableEntry[] {
  return schema.tables.map((t) => {
    const s = schemaKey(source, t.schema);
    return {
      source_id: source.id,
      domain_id: domainId,
      ...(s === undefined ? {} : { schema: s }),
      table: t.table,
      columns: t.columns.map((c) => ({ name: c.name, data_type: c.configType, ...(c.primaryKey ? { is_primary_key: true as const } : {}) })),
    };
  });
}
