import { fpr16, type SshPrivateKey } from '../../core/sshsig.js';
import { heads } from '../kernel/index.js';
import { resolveTicket } from '../store/resolve-ticket.js';
import { storeRoot } from '../store/store-root.js';
import type { EventStore } from '../store/store.js';
import { witnessEvent, witnessRoot } from '../verify/index.js';
import { parseStoredEvents } from './ticket-loader.js';

/**
 * Countersignatures (tik-model.md §8.4, upstream ADR 0004): `tik witness` signs a ticket's heads
 * and `tik root --witness` the store's root document, in namespace `tik-witness`. A head commits
 * to its whole ancestry, so one signature timestamps every event before it; the root commits to
 * every head of every ticket. Observation, not authorship: anyone in `actors` may witness.
 */

/** `tik witness --json`. */
export interface WitnessedHeads {
  readonly ticket: string;
  readonly fpr16: string;
  /** Each current head, sorted: its `<head>.witness.<fpr16>` sidecar and whether this run wrote it. */
  readonly heads: readonly { readonly event: string; readonly sidecar: string; readonly written: boolean }[];
}

/**
 * Witness every current head of a ticket (an id or unique prefix). A head already witnessed by
 * this key keeps its sidecar (`written: false`); Ed25519 is deterministic, so it would be the
 * same bytes anyway. Every event is checked against its name before anything is signed.
 */
export async function witnessHeads(store: EventStore, prefix: string, key: SshPrivateKey): Promise<WitnessedHeads> {
  const ticket = await resolveTicket(store, prefix);
  const events = parseStoredEvents(ticket, await store.events(ticket));
  const out: { event: string; sidecar: string; written: boolean }[] = [];
  for (const head of [...heads(events)].sort()) {
    const r = await witnessEvent(store, ticket, head, key);
    out.push({ event: head, sidecar: r.name, written: r.written });
  }
  return { ticket, fpr16: fpr16(key.publicKey.base64), heads: out };
}

/** `tik root --json`. */
export interface RootView {
  /** `sha256-<hex>` of the canonical root document. */
  readonly root: string;
  readonly tickets: number;
  /** The root document itself (never stored: it regenerates byte-identically). */
  readonly document: string;
  /** With a key: the `roots/<root>.witness.<fpr16>` sidecar, and whether this run wrote it. */
  readonly witness: { readonly sidecar: string; readonly written: boolean } | null;
  /** With a stamper: the `roots/<root>.ots` proof, and whether this run wrote it. */
  readonly anchor: { readonly sidecar: string; readonly written: boolean } | null;
}

/**
 * Stamps a root document with a third party (OpenTimestamps): the bytes of the proof. The caller
 * runs the tool; the store only keeps what it returns.
 */
export type RootStamper = (document: string, root: string) => Promise<Uint8Array>;

/**
 * The store's root, with `key` its countersignature and with `stamp` its anchor (one hash
 * committing to every event). A root already anchored keeps its proof and is not stamped again:
 * `ots upgrade` rewrites a proof in place once its Bitcoin block exists, and a fresh stamp would
 * replace that with a pending one.
 */
export async function rootOf(store: EventStore, opts: { readonly key?: SshPrivateKey | undefined; readonly stamp?: RootStamper | undefined } = {}): Promise<RootView> {
  const r = await storeRoot(store);
  const witness = opts.key === undefined ? null : await witnessRoot(store, opts.key, r);
  let anchor: RootView['anchor'] = null;
  if (opts.stamp !== undefined) {
    const sidecar = `${r.root}.ots`;
    const kept = (await store.readRootWitness(sidecar)) !== undefined;
    if (!kept) await store.putRootWitness(sidecar, await opts.stamp(r.document, r.root));
    anchor = { sidecar, written: !kept };
  }
  return {
    root: r.root,
    tickets: r.heads.size,
    document: r.document,
    witness: witness === null ? null : { sidecar: witness.name, written: witness.written },
    anchor,
  };
}
