import type { ReceiveSummary } from './receive-bundle.js';

/**
 * How an initiator reaches a responder. Three stateless calls; HTTP is one implementation
 * (`httpTransport`), a direct call into another store is another (`localTransport`).
 */
export interface SyncTransport {
  /** Sends a reconciliation message, returns the responder's answer. */
  reconcile(message: Uint8Array): Promise<Uint8Array>;
  /** Asks for the events with these ids; returns a bundle. */
  fetch(request: Uint8Array): Promise<Uint8Array>;
  /** Delivers a bundle; returns what the responder stored. */
  push(bundle: Uint8Array): Promise<ReceiveSummary>;
}
