/**
 * Replica sync: range-based set reconciliation (Meyer; Negentropy v1 wire format) over events
 * ordered by (at, id), then a checked transfer, parents before children. The core (`Reconciler`,
 * `ItemSet`) is pure and transport-independent; `syncWith` drives it over any `SyncTransport`.
 * Wire format: docs/tik-sync.md.
 */
export { type SyncItem, idBytes, idText, itemTime, compareItems } from './sync-item.js';
export { type Bound, MIN_BOUND, MAX_BOUND, minimalBound, compareItemToBound } from './bound.js';
export { ItemSet, FINGERPRINT_BYTES, fingerprintOfSum } from './item-set.js';
export { Reconciler, PROTOCOL_VERSION, Mode, type ReconcileOptions, type ReconcileStep } from './reconciler.js';
export { type Bundle, type BundleEvent, encodeBundle, decodeBundle, encodeIdList, decodeIdList, LIMITS } from './bundle.js';
export { type StoreIndex, type SidecarRef, indexStore, sidecarItemId } from './store-index.js';
export { collectBundle } from './collect-bundle.js';
export { type ReceiveSummary, receiveBundle, checkBundle } from './receive-bundle.js';
export { type SyncTransport } from './transport.js';
export { SyncResponder, type ResponderLimits } from './responder.js';
export { SYNC_LIMITS, type SyncLimits } from './limits.js';
export { type HttpTransportOptions } from './http-transport.js';
export { localTransport } from './local-transport.js';
export { httpTransport, SYNC_PATHS } from './http-transport.js';
export { type SyncOptions, type SyncReport, syncWith } from './sync-session.js';
