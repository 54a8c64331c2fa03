import { emit, readEdn, isMap } from '../edn/index.js';
import { sha256Hex } from '../../core/hash.js';
import { parseEvent, type TikEvent } from '../kernel/index.js';
import type { EventStore } from '../store/store.js';
import { replicatedRegister, ROLES_TICKET } from './roles-ticket.js';

/** The roles register derivation reads, and where it came from (reported by /health, sync, verify). */
export interface EffectiveRegister {
  /** `ticket`: the replicated roles ticket; `file`: this store's `roles.edn` (upstream's way); `none`. */
  readonly source: 'ticket' | 'file' | 'none';
  /** `conflicted` when concurrent publishes contend (each role keeps the members all name). */
  readonly status: 'present' | 'conflicted' | 'absent';
  /** The register's text as derivation reads it (canonical for the ticket), or undefined. */
  readonly text: string | undefined;
  /** `sha256-…` of the canonical register (comments and layout do not count); undefined for none. */
  readonly digest: string | undefined;
  /** When the ticket is the source: `roles.edn` exists and says something else (it is not read). */
  readonly fileDiffers: boolean;
  /** The contending publish events, when conflicted. */
  readonly contenders?: readonly string[];
}

/** The last text digested and its digest: a server reads the same register on every status. */
let lastDigest: { text: string; digest: string } | undefined;

const digestOf = (text: string): string => {
  if (lastDigest?.text === text) return lastDigest.digest;
  let digest: string;
  try {
    digest = `sha256-${sha256Hex(Buffer.from(emit(readEdn(text, 'roles.edn'))))}`;
  } catch {
    digest = `sha256-${sha256Hex(Buffer.from(text))}`; // unreadable: still comparable byte for byte
  }
  lastDigest = { text, digest };
  return digest;
};

/**
 * The register in effect for a store: the replicated roles ticket when it holds one, else
 * `roles.edn` exactly as upstream tik reads it. Every replica with the same events derives the
 * same roles once anyone has published to the ticket (`tik roles publish`).
 */
export async function effectiveRegister(store: EventStore): Promise<EffectiveRegister> {
  const fileText = await store.readRolesRegister();
  const events: TikEvent[] = [];
  // most stores have no roles ticket: a byte-free listing says so without reading
  const none = store.eventIds !== undefined && (await store.eventIds(ROLES_TICKET).catch(() => undefined))?.length === 0;
  for (const e of none ? [] : await store.events(ROLES_TICKET).catch(() => [])) {
    try {
      events.push(parseEvent(Buffer.from(e.bytes).toString('utf8'), e.id));
    } catch {
      // a damaged event is verify's business; the register is derived from the readable ones
    }
  }
  const r = replicatedRegister(events);
  if (r.status !== 'absent') {
    const text = emit(r.register);
    const digest = digestOf(text);
    let fileDiffers = false;
    if (fileText !== undefined) {
      try {
        const v = readEdn(fileText, 'roles.edn');
        fileDiffers = !isMap(v) || digestOf(emit(v)) !== digest;
      } catch {
        fileDiffers = true;
      }
    }
    return { source: 'ticket', status: r.status, text, digest, fileDiffers, ...(r.status === 'conflicted' ? { contenders: r.events } : {}) };
  }
  if (fileText !== undefined) return { source: 'file', status: 'present', text: fileText, digest: digestOf(fileText), fileDiffers: false };
  return { source: 'none', status: 'absent', text: undefined, digest: undefined, fileDiffers: false };
}
