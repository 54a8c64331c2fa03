/**
 * The input signal of an MV over a tik source (the bridge): a digest of the store's event set, as
 * tik sync reconciles it (events and their sidecars, each content-addressed), so it changes exactly
 * when the set does, on any replica, whatever path the events arrived by.
 *
 * Only the log-derived tables are fully determined by it: `events` and `facts` (a ticket's reduced
 * state). `tickets` also derives stages from `now`, the pinned definitions and the roles register,
 * so an MV over it has no input signal and refreshes by its interval (a digest would freeze a
 * stage that a deadline moves).
 */
import { openFileStore } from '../../tik/store/index.js';
import { indexStore } from '../../tik/sync/index.js';

/** The tik source tables whose content the store digest determines. */
export const TIK_LOG_TABLES: ReadonlySet<string> = new Set(['events', 'facts']);

/** `<hex fingerprint of the whole event set>:<items>` of the tik file store at `root`. */
export async function tikStoreDigest(root: string): Promise<string> {
  const { set } = await indexStore(openFileStore(root));
  return `${Buffer.from(set.fingerprint(0, set.size)).toString('hex')}:${set.size}`;
}
