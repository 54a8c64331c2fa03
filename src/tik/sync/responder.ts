import { TikError } from '../errors.js';
import type { EventStore } from '../store/store.js';
import { decodeIdList, encodeBundle } from './bundle.js';
import { collectBundle } from './collect-bundle.js';
import { SYNC_LIMITS } from './limits.js';
import { receiveBundle, receiveStream, type ReceiveFilter, type ReceiveSummary, type StreamOptions } from './receive-bundle.js';
import { Reconciler, type ReconcileOptions } from './reconciler.js';
import { indexStore, type StoreIndex } from './store-index.js';

/** What a responder allows one request (defaults `SYNC_LIMITS`). */
export interface ResponderLimits {
  readonly reconcileBytes?: number;
  readonly fetchIds?: number;
  readonly bundleBytes?: number;
}

/**
 * The responder side of sync over one store, with no per-peer state: each reconcile reads the
 * store afresh, so writes arriving by any path between rounds are simply part of the next answer.
 * Each request is bounded: a reconciliation message by size (and so by the ids it can list), a
 * fetch by the ids it asks for, and its answer by `bundleBytes` (a prefix; the peer asks again).
 */
export class SyncResponder {
  private index: Pick<StoreIndex, 'ticketOf' | 'sidecarOf'> | undefined;
  private readonly limits: Required<ResponderLimits>;

  constructor(
    readonly store: EventStore,
    private readonly options: ReconcileOptions & { readonly limits?: ResponderLimits } = {},
  ) {
    this.limits = { reconcileBytes: SYNC_LIMITS.reconcileBytes, fetchIds: SYNC_LIMITS.fetchIds, bundleBytes: SYNC_LIMITS.bundleBytes, ...options.limits };
  }

  async reconcile(message: Uint8Array): Promise<Uint8Array> {
    if (message.length > this.limits.reconcileBytes) {
      throw new TikError('sync/too-large', `a reconciliation message of ${message.length} bytes is larger than the limit ${this.limits.reconcileBytes}`, { where: 'reconciliation message', hint: 'use a frame size limit of at most 1 MiB' });
    }
    const index = await indexStore(this.store);
    return new Reconciler(index.set, this.options).respond(message);
  }

  async fetch(request: Uint8Array): Promise<Uint8Array> {
    const ids = decodeIdList(request, this.limits.fetchIds);
    // Where an id lives never changes (ids are content addresses, stores are append-only), so the
    // last index answers lookups; an id it does not know triggers one fresh read of the store.
    const known = (i: Pick<StoreIndex, 'ticketOf' | 'sidecarOf'>): boolean => ids.every((id) => i.ticketOf.has(id) || i.sidecarOf.has(id));
    if (this.index === undefined || !known(this.index)) this.index = await indexStore(this.store);
    return encodeBundle(await collectBundle(this.store, this.index, ids, this.limits.bundleBytes - (1 << 20)));
  }

  /** Receives a pushed bundle, through the replica's `filter` when it has one. */
  async push(bundle: Uint8Array, filter?: ReceiveFilter): Promise<ReceiveSummary> {
    return receiveBundle(this.store, bundle, filter ? { filter } : {});
  }

  /** Receives a pushed bundle while it streams, admitting it group by group (`receiveStream`). */
  async pushStream(body: AsyncIterable<Uint8Array>, options: StreamOptions = {}): Promise<ReceiveSummary> {
    return receiveStream(this.store, body, options);
  }
}
