/**
 * What every derived cache of a ticket is keyed by (issue 18; ADR 0013: derived data, never
 * authority): the digest of its event set and whether its pin still resolves to the definition a
 * kept derivation was made under. Shared by the `ls` index and the status cache.
 */
import { createHash, hash } from 'node:crypto';
import { isCodedError } from '../../core/errors.js';
import type { EventStore } from '../store/store.js';
import type { Pin } from './pin.js';
import { resolvePin } from './ticket-loader.js';

// crypto.hash (Node ≥ 20.12) skips the Hash object; older 20.x builds fall back
const sha256 = (text: string): string => (typeof hash === 'function' ? hash('sha256', text, 'base64') : createHash('sha256').update(text).digest('base64'));

/** SHA-256 of a ticket's sorted event ids: an event that arrives by any route changes it. */
export const eventSetDigest = (ids: readonly string[]): string => sha256([...ids].sort().join('\n'));

/**
 * Whether `pin` resolves now, without a warning, to the definition hashed `defHash`. A pin that
 * cannot be resolved (a coded error) does not hold: the caller derives again and meets the error.
 */
export async function pinResolvesTo(store: EventStore, pin: Pin, defHash: string): Promise<boolean> {
  try {
    const warned: string[] = [];
    const r = await resolvePin({ warn: (w) => warned.push(w) }, store, pin);
    return warned.length === 0 && r.def?.hash === defHash;
  } catch (err) {
    if (!isCodedError(err)) throw err;
    return false;
  }
}
