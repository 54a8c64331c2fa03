/**
 * The names a store accepts, checked before anything touches storage: content ids, ticket uuids,
 * sidecar names, process names (tik-model.md §1.7, §1.9). One place, so every backend refuses
 * the same inputs with the same codes.
 */
import { createHash } from 'node:crypto';
import { TikError } from '../errors.js';

/** `sha256-` and 64 lower-case hex digits: the one content-address form (ADR 0006). */
export const CONTENT_ID = /^sha256-[0-9a-f]{64}$/;
/** A ticket directory/key: a lower-case 8-4-4-4-12 uuid. */
export const TICKET_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** An event file name. */
export const EVENT_FILE = /^(sha256-[0-9a-f]{64})\.edn$/;
/** A sidecar beside an event or an archived definition: `<id>.<kind>.<fpr16>`. */
export const SIDECAR_NAME = /^(sha256-[0-9a-f]{64})\.(sig|witness)\.([0-9a-f]{16})$/;
/** A named process file stem: no path separators, no leading dot. */
export const PROCESS_NAME = /^[A-Za-z0-9_][A-Za-z0-9._+*!?-]*$/;
/** An actor name in `actors`: one allowed-signers principal, never a pattern (no space, comma, quote, `*`, `?`, `!`, or `#` start). */
export const ACTOR_NAME = /^[^\s,"#*?!][^\s,"*?!]*$/;

/** `sha256-<hex>` of raw bytes. */
export function sha256Id(bytes: Uint8Array | string): string {
  return `sha256-${createHash('sha256').update(bytes).digest('hex')}`;
}

export function checkContentId(id: string, what = 'event id'): void {
  if (typeof id !== 'string' || !CONTENT_ID.test(id)) {
    throw new TikError('store/bad-id', `${what} ${JSON.stringify(id)} is not sha256-<64 lower-case hex>`, {
      where: what,
      hint: 'content ids are "sha256-" followed by 64 lower-case hex digits',
    });
  }
}

export function checkTicket(ticket: string): void {
  if (typeof ticket !== 'string' || !TICKET_UUID.test(ticket)) {
    throw new TikError('store/bad-ticket', `ticket ${JSON.stringify(ticket)} is not a lower-case uuid`, {
      where: 'ticket',
      hint: 'ticket ids look like 018f2f6e-7c1a-7000-8000-00000000c0de; use resolveTicket for a prefix',
    });
  }
}

export function checkSidecarName(name: string): void {
  if (typeof name !== 'string' || !SIDECAR_NAME.test(name)) {
    throw new TikError('store/bad-sidecar-name', `sidecar name ${JSON.stringify(name)} is not <id>.sig.<fpr16> or <id>.witness.<fpr16>`, {
      where: 'sidecar',
      hint: 'sidecars are named sha256-<hex>.sig.<16 hex> (authorship) or sha256-<hex>.witness.<16 hex>',
    });
  }
}

/** An OpenTimestamps proof of a root document (`tik root --anchor`), kept as `roots/<root>.ots`. */
export const ROOT_ANCHOR_NAME = /^sha256-[0-9a-f]{64}\.ots$/;

/** A file of `roots/`: a root witness `<root>.witness.<fpr16>` or an anchor `<root>.ots`. */
export function checkRootSidecarName(name: string): void {
  if (typeof name !== 'string' || (SIDECAR_NAME.exec(name)?.[2] !== 'witness' && !ROOT_ANCHOR_NAME.test(name))) {
    throw new TikError('store/bad-sidecar-name', `root sidecar name ${JSON.stringify(name)} is not <root>.witness.<fpr16> or <root>.ots`, {
      where: 'roots',
      hint: 'root witnesses are named sha256-<root hash>.witness.<16 hex>, anchors sha256-<root hash>.ots',
    });
  }
}

export function checkProcessName(name: string): void {
  if (typeof name !== 'string' || !PROCESS_NAME.test(name) || name.endsWith('.tests') || name === 'by-hash') {
    throw new TikError('store/bad-process-name', `process name ${JSON.stringify(name)} cannot name a file in processes/`, {
      where: 'process',
      hint: 'a process name is the file stem of processes/<name>.edn, e.g. support-request',
    });
  }
}

export function checkBytesMatch(id: string, bytes: Uint8Array, where: string): void {
  if (!(bytes instanceof Uint8Array)) {
    throw new TikError('store/bad-bytes', `the bytes for ${id} are not a byte array`, { where });
  }
  const actual = sha256Id(bytes);
  if (actual !== id) {
    throw new TikError('store/hash-mismatch', `bytes hash to ${actual}, not to ${id}`, {
      where,
      hint: 'an event is stored under the SHA-256 of its exact canonical bytes; mint it, do not edit it',
    });
  }
}

/** The sidecar name for an authorship signature of `id` by the key with this fpr16. */
export function signatureSidecarName(id: string, fpr: string): string {
  return `${id}.sig.${fpr}`;
}
