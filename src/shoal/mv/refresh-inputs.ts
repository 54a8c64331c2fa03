/**
 * What a refresh of an MV reads, now: its version stamps (definition and input versions), and the
 * resolution of every MV it reads.
 */
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CatalogModel } from '../config/model.js';
import { qualifiedName } from '../config/model.js';
import type { Engine } from '../engine/engine.js';
import { planQuery, type GovernanceCatalog } from '../sql/index.js';
import type { DerivedTable } from './derived-graph.js';
import type { MvInfo } from './mv-info.js';
import type { MvResolution } from './mv-resolver.js';
import type { RefreshVersions } from './refresh-catalog.js';
import { SERVICE_ROLE_ID } from './service-identity.js';
import { TIK_LOG_TABLES, tikStoreDigest } from './tik-store-digest.js';
import {
  definitionVersion,
  gatherInputSignals,
  inputToken,
  inputTokenKind,
  mvSnapshotSignal,
  type InputProbes,
  type InputSignal,
  type InputSource,
} from './version-stamps.js';

export interface RefreshInputs {
  readonly versions: RefreshVersions;
  /** By lower-cased MV id: how each MV the refresh reads is bound (what the build binds too). */
  readonly resolutions: ReadonlyMap<string, MvResolution>;
}

/** The synced catalog a refresh reads through, and how it reaches the engine and the MVs. */
export interface InputScope {
  readonly model: CatalogModel;
  /** Every derived table (MVs and derived views) of the catalog, by key. */
  readonly derived: ReadonlyMap<string, DerivedTable>;
  readonly engine: Engine;
  /** The catalog as the service role sees it (watermark probes plan through it). */
  readonly service: GovernanceCatalog;
  /** An MV's resolution straight from the catalog (not the reader cache): a refresh stamps what it reads. */
  resolveFresh(id: string): Promise<MvResolution>;
}

const FILE_TYPES = new Set(['csv', 'parquet', 'json']);

/**
 * What a refresh of this MV reads, now: its version stamps, and the resolution of every MV it
 * reads (the same ones the build binds, so the stamps describe exactly what was computed). An MV
 * read through its snapshot contributes the snapshot id (`mv_snapshot`); a derived view, or an MV
 * without a snapshot yet, is computed inline: its view_sql joins the definition and its own
 * inputs join the inputs.
 */
export async function refreshInputs(mv: MvInfo, scope: InputScope): Promise<RefreshInputs> {
  const resolutions = new Map<string, MvResolution>();
  const inlined: Record<string, string> = {};
  const sources: InputSource[] = [];
  const mvSignals = new Map<string, InputSignal>();
  const keys = new Set<string>();
  const walk = async (reads: readonly string[], path: ReadonlySet<string>): Promise<void> => {
    for (const key of reads) {
      if (path.has(key) || keys.has(key) || inlined[key] !== undefined) continue;
      const d = scope.derived.get(key);
      if (d?.materialized) {
        const r = await scope.resolveFresh(d.id);
        resolutions.set(d.id.toLowerCase(), r);
        if (r.kind === 'snapshot') {
          mvSignals.set(key, mvSnapshotSignal(r.snapshotId));
          keys.add(key);
          continue;
        }
      }
      if (d) {
        inlined[key] = d.table.view_sql ?? '';
        await walk(d.reads, new Set([...path, key]));
        continue;
      }
      keys.add(key);
      sources.push(inputSource(scope.model, key));
    }
  };
  await walk(mv.sourceTables, new Set([mv.id.toLowerCase()]));
  const probes: InputProbes = {
    fileStat: async (path) => {
      const s = await stat(path);
      return { size: s.size, mtimeMs: s.mtimeMs };
    },
    maxWatermark: async (table, column) => maxOf(scope, table, column),
    tikStoreDigest,
  };
  const signals = new Map([...(await gatherInputSignals(sources, probes)), ...mvSignals]);
  const inputKeys = [...keys];
  const versions: RefreshVersions = {
    definitionVersion: definitionVersion({ sql: mv.table.view_sql ?? null, sourceTables: mv.sourceTables, inlined }),
    inputVersion: inputToken(signals, inputKeys),
    inputVersionKind: inputTokenKind(signals, inputKeys),
  };
  return { versions, resolutions };
}

function inputSource(model: CatalogModel, key: string): InputSource {
  const t = model.tables.find((x) => qualifiedName(x).toLowerCase() === key);
  const src = t && model.sources.find((s) => s.id === t.source_id);
  if (t && src && FILE_TYPES.has(src.type.toLowerCase()) && src.path) return { table: key, kind: 'file', path: filePath(src.path, t.table, src.type.toLowerCase()) };
  if (t && src && src.type === 'tik' && src.path && TIK_LOG_TABLES.has(t.table.toLowerCase())) return { table: key, kind: 'tik_store', root: src.path };
  if (t && t.watermark_column) return { table: key, kind: 'table', watermarkColumn: t.watermark_column };
  return { table: key, kind: 'none' };
}

async function maxOf(scope: InputScope, tableKey: string, column: string): Promise<unknown> {
  const sql = planQuery({ sql: `SELECT max("${column.replace(/"/g, '""')}") AS m FROM ${tableKey}`, role: SERVICE_ROLE_ID }, scope.service, { route: 'engine', engine: scope.engine.name }).sql;
  for await (const batch of scope.engine.execute(sql)) return batch.rows[0]?.[0] ?? null;
  return null;
}

function filePath(path: string, table: string, type: string): string {
  // a source path is the file itself, or a directory of <table>.<ext> files (as the engine reads it)
  try {
    return statSync(path).isDirectory() ? join(path, `${table}.${type}`) : path;
  } catch {
    return path; // missing: the probe fails and the table gives no signal
  }
}
