import type { EventStore } from '../store/store.js';
import { decodeIdList, encodeBundle } from './bundle.js';
import { collectBundle } from './collect-bundle.js';
import { receiveBundle, type ReceiveSummary } from './receive-bundle.js';
import { Reconciler, type ReconcileOptions } from './reconciler.js';
import { indexStore, type StoreIndex } from './store-index.js';

/**
 * The responder side of sync over one store, with no per-peer state: each reconcile reads the
 * store afresh, so writes arriving by any path between rounds are simply part of the next answer.
 */
export class SyncResponder {
  private index: Pick<StoreIndex, 'ticketOf' | 'sidecarOf'> | undefined;

  constructor(
    readonly store: EventStore,
    private readonly options: ReconcileOptions = {},
  ) {}

  async reconcile(message: Uint8Array): Promise<Uint8Array> {
    const index = await indexStore(this.store);
    return new Reconciler(index.set, this.options).respond(message);
  }

  async fetch(request: Uint8Array): Promise<Uint8Array> {
    const ids = decodeIdList(request);
    // Where an id lives never changes (ids are content addresses, stores are append-only), so the
    // last index answers lookups; an id it does not know triggers one fresh read of the store.
    const known = (i: Pick<StoreIndex, 'ticketOf' | 'sidecarOf'>): boolean => ids.every((id) => i.ticketOf.has(id) || i.sidecarOf.has(id));
    if (this.index === undefined || !known(this.index)) this.index = await indexStore(this.store);
    return encodeBundle(await collectBundle(this.store, this.index, ids));
  }

  async push(bundle: Uint8Array): Promise<ReceiveSummary> {
    return receiveBundle(this.store, bundle);
  }
}
