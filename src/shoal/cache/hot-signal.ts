/**
 * A hot copy's change signal: what tells an instance, cheaply, that a table's source changed
 * since its copy was read. The signals are the MV input signals (mv/version-stamps.ts), chosen per
 * source type:
 * - csv / parquet / json: the file's size and mtime (`file_stat`);
 * - sqlite: the size and mtime of the database file and of its `-wal` file (a commit in WAL mode
 *   touches only the latter until a checkpoint);
 * - any table with `watermark_column` (PostgreSQL, MySQL): `MAX(<watermark_column>)` (`watermark`),
 *   which sees inserts and updates that advance the column, not deletions;
 * - otherwise none (PostgreSQL / MySQL without a watermark column, tik): such a table is never
 *   promoted automatically; `hot: true` still caches it, bounded by `refresh_interval` alone.
 * A copy is stamped with the signal read BEFORE its rows (rows are never older than their stamp)
 * and revalidated: served only while its stamp still matches the source, as checked at most
 * `hot_tables.revalidate_interval` seconds ago.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceConfig, TableConfig } from '../config/model.js';
import { type InputSignal, watermarkSignal } from '../mv/version-stamps.js';

/** Where a table's signal comes from (`none`: it has no signal). */
export type HotSignalSpec =
  | { readonly kind: 'files'; readonly paths: readonly string[] }
  | { readonly kind: 'watermark'; readonly column: string }
  | { readonly kind: 'none' };

const FILE_TYPES = new Set(['csv', 'parquet', 'json']);

/** The signal spec of one table of one source. */
export function hotSignalSpec(t: TableConfig, source: SourceConfig | undefined): HotSignalSpec {
  const type = source?.type.toLowerCase();
  if (source?.path && type !== undefined && FILE_TYPES.has(type)) return { kind: 'files', paths: [filePath(source.path, t.table, type)] };
  if (source?.path && type === 'sqlite') return { kind: 'files', paths: [source.path, `${source.path}-wal`] };
  if (t.watermark_column && type !== 'tik') return { kind: 'watermark', column: t.watermark_column };
  return { kind: 'none' };
}

/** A source path is the file itself or a directory of `<table>.<ext>` files (as the engine reads it). */
function filePath(path: string, table: string, type: string): string {
  try {
    return statSync(path).isDirectory() ? join(path, `${table}.${type}`) : path;
  } catch {
    return path;
  }
}

/** The I/O behind a signal, injected by the instance. */
export interface HotSignalProbes {
  /** Size and mtime in nanoseconds (as precise as the OS keeps it) of a file; undefined when it does not exist. */
  fileStat(path: string): Promise<{ readonly size: bigint; readonly mtimeNs: bigint } | undefined>;
  /** `MAX(column)` of the live table. */
  maxWatermark(column: string): Promise<unknown>;
}

/**
 * The current signal of a table, as one comparable string (`kind:value`), or null when the spec
 * gives none or the probe found nothing (an empty watermark). A probe that fails throws: the
 * caller then serves live.
 */
export async function readHotSignal(spec: HotSignalSpec, probes: HotSignalProbes): Promise<string | null> {
  if (spec.kind === 'none') return null;
  if (spec.kind === 'watermark') return token(watermarkSignal(await probes.maxWatermark(spec.column)));
  const parts: string[] = [];
  for (const p of spec.paths) {
    const s = await probes.fileStat(p);
    // the MV `file_stat` signal, at nanosecond precision: two commits within a millisecond differ
    parts.push(s === undefined ? 'absent' : `file_stat:${s.size}@${s.mtimeNs}ns`);
  }
  return parts.join(';');
}

const token = (s: InputSignal | null): string | null => (s === null ? null : `${s.kind}:${s.value}`);
