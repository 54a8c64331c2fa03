/**
 * shoal's materialized views, the public boundary of src/shoal/mv: the shared refresh catalog and
 * its lease protocol (law S3), version stamps, and one coordinated refresh. The determinism check
 * and tier admission live behind the SQL boundary (`admitMaterializedView` in src/shoal/sql).
 */
export {
  type ClaimRequestOptions,
  type ClaimResult,
  type CommitInput,
  type MvConsistency,
  type MvDefinition,
  type MvRow,
  type MvStatus,
  type ReclaimInfo,
  ReconcileError,
  RefreshCatalog,
  type RefreshCatalogOptions,
  type RefreshClaim,
  type RefreshLogEntry,
  type RefreshOutcome,
  type RefreshVersions,
  type ReleaseInput,
  type SkipReason,
} from './refresh-catalog.js';
export { migrateRefreshCatalog } from './refresh-catalog-schema.js';
export {
  type BuiltSnapshot,
  MV_REFRESH_REFUSED,
  type RefreshRequest,
  type RefreshResult,
  type RefreshWork,
  refreshUnderLease,
  refuseRefresh,
} from './refresh-under-lease.js';
export {
  INPUT_SIGNAL_KINDS,
  type InputProbes,
  type InputSignal,
  type InputSignalKind,
  type InputSource,
  type MvDefinitionContent,
  definitionVersion,
  fileSignal,
  gatherInputSignals,
  icebergSignal,
  inputToken,
  inputTokenKind,
  mvSnapshotSignal,
  refreshVersions,
  resolveInputVersion,
  strongestSignal,
  tikStoreSignal,
  watermarkSignal,
} from './version-stamps.js';
