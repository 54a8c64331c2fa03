/**
 * The `actors` file (allowed-signers lines, §1.9) as text: parsing it and adding an actor, shared
 * by every store whatever holds the text (a file beside the log, a keyed file in a table or memory).
 */
import { CodedError } from '../../core/errors.js';
import { allowedSignerLine, fpr16, parseAllowedSigners, parseAnyPublicKeyLine, type AllowedSigner } from '../../core/sshsig.js';
import { TikError } from '../errors.js';
import type { ActorEntry } from './store.js';
import { ACTOR_NAME } from './store-names.js';

/** The signers an `actors` text allows; no text → none. A broken file is `store/bad-actors`. */
export function parseActors(text: string | undefined, where: string): readonly AllowedSigner[] {
  if (text === undefined) return [];
  try {
    return parseAllowedSigners(text, where);
  } catch (e) {
    if (e instanceof CodedError) {
      throw new TikError('store/bad-actors', e.message, { where: e.where, position: e.position, hint: e.hint, cause: e });
    }
    throw e;
  }
}

/**
 * Add `name` with the key on `pubkeyLine` to an `actors` text. Returns the entry, and the new text
 * to write — undefined when that name already has that key (adding is idempotent). Refuses a bad
 * name or key, and extending a file that does not parse, before anything is written.
 */
export function addActorToText(current: string | undefined, name: string, pubkeyLine: string, where: string): { entry: ActorEntry; text: string | undefined } {
  if (typeof name !== 'string' || !ACTOR_NAME.test(name)) {
    throw new TikError('store/bad-actor-name', `actor name ${JSON.stringify(name)} cannot be an allowed-signers principal`, {
      where: 'actor',
      hint: 'an actor name has no spaces, commas or quotes and does not start with #',
    });
  }
  let parsed: ReturnType<typeof parseAnyPublicKeyLine>;
  try {
    parsed = parseAnyPublicKeyLine(pubkeyLine);
  } catch (e) {
    const c = e instanceof CodedError ? e : undefined;
    throw new TikError('store/bad-public-key', `not an SSH public key line: ${c?.message ?? String(e)}`, {
      where: 'public key',
      hint: c?.hint ?? 'pass the contents of an id_ed25519.pub file',
      cause: e,
    });
  }
  const line = allowedSignerLine(name, parsed, parsed.comment);
  const entry: ActorEntry = Object.freeze({ name, fpr16: fpr16(parsed.base64), line });
  const signers = parseActors(current, where); // refuses to extend a broken file
  if (signers.some((a) => a.keyBase64 === parsed.base64 && a.principals.includes(name))) return { entry, text: undefined };
  const old = current ?? '';
  const sep = old === '' || old.endsWith('\n') ? '' : '\n';
  return { entry, text: `${old}${sep}${line}\n` };
}
