/** The backends `tik store migrate --to` accepts (apart from migrate.ts, which loads every driver). */
export type MigrateTarget = 'sqlite' | 'file' | 'postgres';
export const MIGRATE_TARGETS: readonly MigrateTarget[] = Object.freeze(['sqlite', 'file', 'postgres']);
