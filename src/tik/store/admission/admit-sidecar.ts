/**
 * Admission of a signature or witness sidecar, and the union rule for two under one name.
 *
 * A sidecar `<id>.sig.<fpr16>` (`tik-event`) or `<id>.witness.<fpr16>` (`tik-witness`) is admitted
 * only if it is an SSHSIG over the event's exact bytes, in its namespace, by the key whose
 * fingerprint the name carries. Trust in that key (`actors`) is not decided here: that is for
 * guards and `tik verify` (upstream ADR 0011). A stored valid signature is never replaced by an
 * invalid one and never dropped; of two valid ones under one name (a randomized scheme signed
 * twice) every replica keeps the bytewise smaller, so all converge on the same bytes. A
 * definition's publication signature `<hash>.sig.<fpr16>` (`tik-process`) follows the same rules
 * over the definition's canonical bytes.
 */
import { fpr16, parseSshSignature, verifySshSignature } from '../../../core/sshsig.js';
import { sshKeygenVerify } from '../../verify/ssh-keygen-fallback.js';
import { SIDECAR_NAME } from '../store-names.js';
import { checkSize, refusal } from './admit-record.js';
import { ADMISSION_LIMITS } from './limits.js';

const NAMESPACES = Object.freeze({ sig: 'tik-event', witness: 'tik-witness' } as const);
/** Namespace of a definition's publication signature (`tik process sign`). */
const PROCESS_NAMESPACE = 'tik-process';

/** Why a sidecar is not a valid signature of `eventBytes`, or undefined if it is one. */
export async function sidecarProblem(name: string, bytes: Uint8Array, eventBytes: Uint8Array): Promise<string | undefined> {
  const m = SIDECAR_NAME.exec(name);
  if (!m) return 'the name is not <id>.sig.<fpr16> or <id>.witness.<fpr16>';
  return signatureProblem(bytes, eventBytes, NAMESPACES[m[2] as 'sig' | 'witness'], m[3]!, "the event's");
}

/**
 * Why a definition's sidecar is not a valid publication signature of `definitionBytes` (name
 * `<hash>.sig.<fpr16>`, namespace `tik-process`), or undefined if it is one.
 */
export async function definitionSidecarProblem(name: string, bytes: Uint8Array, definitionBytes: Uint8Array): Promise<string | undefined> {
  const m = SIDECAR_NAME.exec(name);
  if (m?.[2] !== 'sig') return 'the name is not <hash>.sig.<fpr16>';
  return signatureProblem(bytes, definitionBytes, PROCESS_NAMESPACE, m[3]!, "the definition's");
}

async function signatureProblem(bytes: Uint8Array, subject: Uint8Array, namespace: string, namedFpr: string, whose: string): Promise<string | undefined> {
  if (bytes.length > ADMISSION_LIMITS.sidecar) return 'it is larger than the sidecar limit';
  let sig;
  try {
    sig = parseSshSignature(bytes);
  } catch (e) {
    return `it is not an SSH signature (${(e as Error).message})`;
  }
  const keyFpr = fpr16(Buffer.from(sig.publicKeyBlob).toString('base64'));
  if (keyFpr !== namedFpr) return `it is signed by the key ${keyFpr}, not by ${namedFpr} that its name claims`;
  if (sig.namespace !== namespace) return `its namespace is "${sig.namespace}", not "${namespace}"`;
  if (sig.publicKey !== undefined) {
    const r = verifySshSignature(bytes, subject, namespace);
    return r.ok ? undefined : `it does not verify over ${whose} bytes (${r.reason})`;
  }
  const r = await sshKeygenVerify(bytes, subject, namespace, sig.publicKeyType, Buffer.from(sig.publicKeyBlob).toString('base64'));
  return r.ok ? undefined : `it does not verify over ${whose} bytes (${r.reason})`;
}

/** Refuses (`admission/bad-sidecar`) a sidecar that is not a valid signature of its event. */
export async function admitSidecar(ticket: string, name: string, bytes: Uint8Array, eventBytes: Uint8Array): Promise<void> {
  const where = `tickets/${ticket}/events/${name}`;
  checkSize('a sidecar', bytes.length, ADMISSION_LIMITS.sidecar, where);
  const problem = await sidecarProblem(name, bytes, eventBytes);
  if (problem !== undefined) {
    throw refusal('bad-sidecar', `sidecar ${name} is refused: ${problem}`, where, 'a sidecar must be an SSHSIG over its event\'s exact bytes by the key its name names; the sender holds a damaged or forged one');
  }
}

/**
 * Whether an admitted (valid) sidecar should replace the stored bytes under its name: when none
 * is stored, when the stored one is not valid (damage from before admission), or when both are
 * valid and the new one is bytewise smaller (deterministic union). Never when the bytes are equal.
 */
export async function replacesStored(
  name: string,
  incoming: Uint8Array,
  stored: Uint8Array | undefined,
  eventBytes: Uint8Array,
  problem: (name: string, bytes: Uint8Array, subject: Uint8Array) => Promise<string | undefined> = sidecarProblem,
): Promise<boolean> {
  if (stored === undefined) return true;
  if (Buffer.compare(stored, incoming) === 0) return false;
  if ((await problem(name, stored, eventBytes)) !== undefined) return true;
  return Buffer.compare(incoming, stored) < 0;
}
