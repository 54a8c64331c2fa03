/**
 * Signing (tik-model.md §8.4): an authorship signature is an SSHSIG in namespace `tik-event` over
 * the event's exact stored bytes, kept as the sidecar `<id>.sig.<fpr16>`; an archived
 * definition's is `tik-process`. Made in process; Ed25519 is deterministic, so the sidecar is
 * byte-identical to what `ssh-keygen -Y sign` writes, on every replica.
 */
import { readFile } from 'node:fs/promises';
import { CodedError } from '../../core/errors.js';
import { fpr16, parseOpenSshPrivateKey, signSshSignature, type SshPrivateKey } from '../../core/sshsig.js';
import { readEdnBytes } from '../edn/index.js';
import { eventFromMap } from '../kernel/index.js';
import { TikError } from '../errors.js';
import type { EventStore } from '../store/store.js';
import { checkContentId, checkTicket, sha256Id, signatureSidecarName } from '../store/store-names.js';
import { EVENT_NAMESPACE } from './level-l1.js';
import { PROCESS_NAMESPACE, WITNESS_NAMESPACE } from './verify-store.js';
import { storeRoot, type StoreRoot } from '../store/store-root.js';

export interface SignResult {
  /** The sidecar name, `<id>.sig.<fpr16>`. */
  readonly name: string;
  /** False if the identical sidecar was already there. */
  readonly written: boolean;
}

/** Reads an unencrypted OpenSSH Ed25519 private key (`TIK_KEY`, `--key`). */
export async function loadSigningKey(path: string): Promise<SshPrivateKey> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new TikError('key/unreadable', `cannot read the signing key ${path} (${(e as { code?: string }).code ?? 'error'})`, {
      where: path,
      hint: 'TIK_KEY / --key names an OpenSSH private key file, e.g. ~/.ssh/id_ed25519',
      cause: e,
    });
  }
  try {
    return parseOpenSshPrivateKey(text, path);
  } catch (e) {
    if (e instanceof CodedError) throw new TikError('key/unusable', e.message, { where: path, ...(e.hint ? { hint: e.hint } : {}), cause: e });
    throw e;
  }
}

/**
 * Signs event `id` of `ticket` with `key` and stores the sidecar. With `actor`, refuses to sign
 * an event whose `:event/actor` is someone else (`tik sign` signs only your own events).
 */
export async function signEvent(
  store: EventStore,
  ticket: string,
  id: string,
  key: SshPrivateKey,
  options: { readonly actor?: string } = {},
): Promise<SignResult> {
  checkTicket(ticket);
  checkContentId(id);
  const bytes = await store.eventBytes(ticket, id);
  if (bytes === undefined) {
    throw new TikError('event/not-found', `ticket ${ticket} has no event ${id}`, { where: ticket, hint: 'list the ticket\'s events with `tik log`' });
  }
  if (sha256Id(bytes) !== id) {
    throw new TikError('event/hash-mismatch', `the stored bytes of ${id} do not hash to its name; refusing to sign them`, {
      where: `tickets/${ticket}/events/${id}.edn`,
      hint: 'run `tik verify` and restore the event from a replica',
    });
  }
  if (options.actor !== undefined) {
    const event = eventFromMap(readEdnBytes(bytes, id), id);
    if (event.actor !== options.actor) {
      throw new TikError('sign/not-own-event', `event ${id} is by "${event.actor}", not by "${options.actor}"`, {
        where: id,
        hint: 'authorship must verify as the event\'s own actor; sign only your own events',
      });
    }
  }
  const name = signatureSidecarName(id, fpr16(key.publicKey.base64));
  const sig = Buffer.from(signSshSignature(key, bytes, EVENT_NAMESPACE), 'utf8');
  const written = await store.putSidecar(ticket, name, sig);
  return Object.freeze({ name, written });
}

/**
 * Witnesses event `id` of `ticket` (`tik witness`, normally a head): an SSHSIG in namespace
 * `tik-witness` over its bytes, stored as `<id>.witness.<fpr16>`. Anyone in `actors` may witness.
 */
export async function witnessEvent(store: EventStore, ticket: string, id: string, key: SshPrivateKey): Promise<SignResult> {
  checkTicket(ticket);
  checkContentId(id);
  const bytes = await store.eventBytes(ticket, id);
  if (bytes === undefined) {
    throw new TikError('event/not-found', `ticket ${ticket} has no event ${id}`, { where: ticket, hint: "list the ticket's events with `tik log`" });
  }
  if (sha256Id(bytes) !== id) {
    throw new TikError('event/hash-mismatch', `the stored bytes of ${id} do not hash to its name; refusing to witness them`, {
      where: `tickets/${ticket}/events/${id}.edn`,
      hint: 'run `tik verify` and restore the event from a replica',
    });
  }
  const name = `${id}.witness.${fpr16(key.publicKey.base64)}`;
  const written = await store.putSidecar(ticket, name, Buffer.from(signSshSignature(key, bytes, WITNESS_NAMESPACE), 'utf8'));
  return Object.freeze({ name, written });
}

/** Signs an archived definition (`tik process sign`): `processes/by-hash/<hash>.sig.<fpr16>`. */
export async function signProcess(store: EventStore, hash: string, key: SshPrivateKey): Promise<SignResult> {
  checkContentId(hash, 'process hash');
  const text = await store.readProcessByHash(hash);
  if (text === undefined) {
    throw new TikError('process/not-archived', `no archived definition ${hash}`, {
      where: `processes/by-hash/${hash}.edn`,
      hint: 'definitions are archived when a ticket is created with them',
    });
  }
  const bytes = Buffer.from(text, 'utf8');
  if (sha256Id(bytes) !== hash) {
    throw new TikError('process/hash-mismatch', `processes/by-hash/${hash}.edn does not hash to its name; refusing to sign it`, {
      where: `processes/by-hash/${hash}.edn`,
    });
  }
  const name = signatureSidecarName(hash, fpr16(key.publicKey.base64));
  const written = await store.putProcessSidecar(hash, name, Buffer.from(signSshSignature(key, bytes, PROCESS_NAMESPACE), 'utf8'));
  return Object.freeze({ name, written });
}

/**
 * Witnesses the store's current root (`tik root --witness`): signs the regenerated root
 * document in namespace `tik-witness` and stores `roots/<root>.witness.<fpr16>`.
 */
export async function witnessRoot(store: EventStore, key: SshPrivateKey, current?: StoreRoot): Promise<SignResult & { readonly root: string }> {
  // `current`: a root the caller has just computed, so a large store is not read twice
  const { root, document } = current ?? (await storeRoot(store));
  const name = `${root}.witness.${fpr16(key.publicKey.base64)}`;
  const written = await store.putRootWitness(name, Buffer.from(signSshSignature(key, Buffer.from(document, 'utf8'), WITNESS_NAMESPACE), 'utf8'));
  return Object.freeze({ name, written, root });
}
