/**
 * One detached SSHSIG check, as `ssh-keygen -Y verify` would make it: the signature must be
 * valid over the exact bytes in the namespace, and its key listed in `actors` for the principal
 * (or for anyone, when `principal` is undefined) and namespace. Ed25519 in process; other key
 * types through the real ssh-keygen.
 */
import {
  parseSshSignature,
  trustCheck,
  verifySshSignature,
  type AllowedSigner,
  type SshSignature,
  type SshVerifyFailure,
} from '../../core/sshsig.js';
import { sshKeygenVerify } from './ssh-keygen-fallback.js';

export type SignatureCheck =
  | { readonly ok: true; readonly principals: readonly string[] }
  | { readonly ok: false; readonly failure: SshVerifyFailure; readonly reason: string };

export async function checkSignature(
  signature: Uint8Array,
  message: Uint8Array,
  namespace: string,
  principal: string | undefined,
  actors: readonly AllowedSigner[],
): Promise<SignatureCheck> {
  let sig: SshSignature;
  try {
    sig = parseSshSignature(signature);
  } catch (e) {
    return { ok: false, failure: 'malformed', reason: e instanceof Error ? e.message : String(e) };
  }
  if (sig.publicKey !== undefined) {
    const r = verifySshSignature(signature, message, namespace);
    if (!r.ok) return r;
  } else {
    if (sig.namespace !== namespace) {
      return { ok: false, failure: 'namespace', reason: `signature namespace is "${sig.namespace}", expected "${namespace}"` };
    }
    const r = await sshKeygenVerify(signature, message, namespace, sig.publicKeyType, Buffer.from(sig.publicKeyBlob).toString('base64'));
    if (!r.ok) return { ok: false, failure: r.unavailable ? 'unsupported' : 'bad-signature', reason: r.reason };
  }
  const trust = trustCheck(Buffer.from(sig.publicKeyBlob).toString('base64'), principal, namespace, actors);
  if (!trust.ok) return trust;
  return { ok: true, principals: trust.principals };
}
