/**
 * Version stamps (federation-fleet.md §2): what a refresh is FOR. The definition version is a hash
 * of the MV's canonical definition; the input version summarises one signal per source table. The
 * refresh catalog dedups claims on the pair, so N instances do one refresh per version. Everything
 * here is a pure function except `gatherInputSignals`, which only calls the probes it is given.
 */
import { sha256Hex } from '../../core/hash.js';
import { canonicalJson } from '../../core/canonical-json.js';
import type { RefreshVersions } from './refresh-catalog.js';

/** The fields that define an MV's content (runtime fields like status are excluded). */
export interface MvDefinitionContent {
  readonly sql?: string | null;
  readonly joinPattern?: Readonly<Record<string, unknown>> | null;
  readonly sourceTables: readonly string[];
  readonly servesAggregates?: boolean;
  readonly aggregateColumns?: readonly string[];
  /**
   * The view_sql of the derived tables this MV computes inline (views it reads, and MVs it reads
   * live because they have no snapshot yet), by key: their definitions are part of its own.
   */
  readonly inlined?: Readonly<Record<string, string>>;
}

/**
 * `sha256:` + the first 16 hex digits of SHA-256 over canonical JSON (sorted keys) of
 * `{sql, join_pattern, source_tables (sorted), serves_aggregates, aggregate_columns (sorted)}`.
 * The join pattern is a JSON object with sorted keys (upstream's Python repr is not portable).
 * An MV that computes other derived tables inline adds `inlined` (absent otherwise, so an MV over
 * source tables keeps upstream's hash).
 */
export function definitionVersion(def: MvDefinitionContent): string {
  const inlined = def.inlined && Object.keys(def.inlined).length > 0 ? { inlined: def.inlined } : {};
  const json = canonicalJson({
    sql: def.sql ?? '',
    join_pattern: def.joinPattern ?? null,
    source_tables: [...def.sourceTables].sort(),
    serves_aggregates: def.servesAggregates ?? false,
    aggregate_columns: [...(def.aggregateColumns ?? [])].sort(),
    ...inlined,
  });
  return `sha256:${sha256Hex(json).slice(0, 16)}`;
}

/** Kinds of input signal, strongest first (`mv_snapshot`: the published snapshot of an MV read by an MV). */
export const INPUT_SIGNAL_KINDS = ['iceberg_snapshot', 'mv_snapshot', 'content_hash', 'tik_store', 'watermark', 'file_stat', 'freshness_token'] as const;
export type InputSignalKind = (typeof INPUT_SIGNAL_KINDS)[number];

export interface InputSignal {
  readonly kind: InputSignalKind;
  readonly value: string;
}

/** A file source: size and mtime (cheap), or a content hash when asked for. */
export function fileSignal(probe: { readonly size: number; readonly mtimeMs: number } | { readonly contentHash: string }): InputSignal {
  return 'contentHash' in probe
    ? { kind: 'content_hash', value: probe.contentHash }
    : { kind: 'file_stat', value: `${probe.size}@${Math.trunc(probe.mtimeMs)}` };
}

/** `MAX(watermark_column)` of a table; null (an empty table) gives no signal. */
export function watermarkSignal(max: unknown): InputSignal | null {
  if (max === null || max === undefined) return null;
  const value = max instanceof Date ? max.toISOString() : typeof max === 'object' ? JSON.stringify(max) : String(max);
  return value === '' ? null : { kind: 'watermark', value };
}

/** A tik store's digest (it changes exactly when the store's event set does). */
export function tikStoreSignal(digest: string): InputSignal | null {
  return digest ? { kind: 'tik_store', value: digest } : null;
}

/** An Iceberg table's current snapshot id; null means not Iceberg. */
export function icebergSignal(snapshotId: string | number | bigint | null): InputSignal | null {
  return snapshotId === null || snapshotId === '' ? null : { kind: 'iceberg_snapshot', value: String(snapshotId) };
}

/** An MV read by another MV: its published (or, distributed, local) snapshot id. */
export function mvSnapshotSignal(snapshotId: string): InputSignal {
  return { kind: 'mv_snapshot', value: snapshotId };
}

/** The strongest usable signal of several for one table (unknown kinds and empty values dropped). */
export function strongestSignal(signals: readonly (InputSignal | null)[]): InputSignal | null {
  let best: InputSignal | null = null;
  for (const s of signals) {
    if (!s || !s.value || !INPUT_SIGNAL_KINDS.includes(s.kind)) continue;
    if (!best || INPUT_SIGNAL_KINDS.indexOf(s.kind) < INPUT_SIGNAL_KINDS.indexOf(best.kind)) best = s;
  }
  return best;
}

/**
 * The claim dedup key: `kind:value` per source, sorted and joined with `;` (order-independent).
 * Null when there are no source tables or any source lacks a signal: a partial set degrades to
 * refresh-by-interval and never skips a rebuild.
 */
export function inputToken(signals: ReadonlyMap<string, InputSignal>, sourceTables: readonly string[]): string | null {
  if (sourceTables.length === 0) return null;
  const parts: string[] = [];
  for (const t of new Set(sourceTables)) {
    const s = signals.get(t);
    if (!s || !s.value) return null;
    parts.push(`${s.kind}:${s.value}`);
  }
  return parts.sort().join(';');
}

/** The kind recorded for an input token: the weakest kind present (the token is only as strong as it). */
export function inputTokenKind(signals: ReadonlyMap<string, InputSignal>, sourceTables: readonly string[]): InputSignalKind | null {
  if (inputToken(signals, sourceTables) === null) return null;
  let weakest = 0;
  for (const t of sourceTables) weakest = Math.max(weakest, INPUT_SIGNAL_KINDS.indexOf(signals.get(t)!.kind));
  return INPUT_SIGNAL_KINDS[weakest]!;
}

/** One version for lineage: the strongest signal, or the refresh epoch when there is none. */
export function resolveInputVersion(signals: readonly InputSignal[], epoch: string): { readonly value: string; readonly kind: InputSignalKind | 'refresh_epoch' } {
  const best = strongestSignal(signals);
  return best ? { value: best.value, kind: best.kind } : { value: epoch, kind: 'refresh_epoch' };
}

/** Where each source table's signal comes from. */
export type InputSource =
  | { readonly table: string; readonly kind: 'file'; readonly path: string; readonly hashContent?: boolean }
  | { readonly table: string; readonly kind: 'table'; readonly watermarkColumn?: string | null }
  | { readonly table: string; readonly kind: 'tik_store'; readonly root: string }
  | { readonly table: string; readonly kind: 'none' };

/** The I/O behind the signals, injected (files, the engine connection, tik stores). */
export interface InputProbes {
  fileStat?(path: string): Promise<{ readonly size: number; readonly mtimeMs: number }>;
  fileHash?(path: string): Promise<string>;
  icebergSnapshot?(table: string): Promise<string | number | bigint | null>;
  maxWatermark?(table: string, column: string): Promise<unknown>;
  tikStoreDigest?(root: string): Promise<string>;
}

/**
 * One signal per source table that has one. A probe that fails or is missing gives no signal for
 * that table (reported to `onError`); gathering never fails a refresh.
 */
export async function gatherInputSignals(
  sources: readonly InputSource[],
  probes: InputProbes,
  onError: (table: string, e: unknown) => void = () => undefined,
): Promise<Map<string, InputSignal>> {
  const out = new Map<string, InputSignal>();
  for (const src of sources) {
    const candidates: (InputSignal | null)[] = [];
    const attempt = async (f: () => Promise<InputSignal | null>) => {
      try {
        candidates.push(await f());
      } catch (e) {
        onError(src.table, e);
      }
    };
    if (src.kind === 'file') {
      if (src.hashContent && probes.fileHash) await attempt(async () => fileSignal({ contentHash: await probes.fileHash!(src.path) }));
      else if (probes.fileStat) await attempt(async () => fileSignal(await probes.fileStat!(src.path)));
    } else if (src.kind === 'table') {
      if (probes.icebergSnapshot) await attempt(async () => icebergSignal(await probes.icebergSnapshot!(src.table)));
      if (!candidates.some(Boolean) && src.watermarkColumn && probes.maxWatermark) {
        await attempt(async () => watermarkSignal(await probes.maxWatermark!(src.table, src.watermarkColumn!)));
      }
    } else if (src.kind === 'tik_store' && probes.tikStoreDigest) {
      await attempt(async () => tikStoreSignal(await probes.tikStoreDigest!(src.root)));
    }
    const best = strongestSignal(candidates);
    if (best) out.set(src.table, best);
  }
  return out;
}

/** The stamps a refresh claims with: the definition version and the input token (null → interval only). */
export function refreshVersions(def: MvDefinitionContent, signals: ReadonlyMap<string, InputSignal>): RefreshVersions {
  return {
    definitionVersion: definitionVersion(def),
    inputVersion: inputToken(signals, def.sourceTables),
    inputVersionKind: inputTokenKind(signals, def.sourceTables),
  };
}
