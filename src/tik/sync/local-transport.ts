import type { EventStore } from '../store/store.js';
import type { ReconcileOptions } from './reconciler.js';
import { SyncResponder, type ResponderLimits } from './responder.js';
import type { SyncTransport } from './transport.js';

/**
 * A transport straight into another store in the same process (tests, `tik store` copies): the
 * same responder code a server runs, with bytes passed by value, so nothing is shared by reference.
 */
export function localTransport(store: EventStore, options: ReconcileOptions & { readonly limits?: ResponderLimits } = {}): SyncTransport {
  const r = new SyncResponder(store, options);
  return {
    reconcile: async (m) => (await r.reconcile(m.slice())).slice(),
    fetch: async (m) => (await r.fetch(m.slice())).slice(),
    push: async (b) => r.push(b.slice()),
  };
}
