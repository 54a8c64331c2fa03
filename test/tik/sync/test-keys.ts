/** In-process Ed25519 keys and real SSHSIG sidecars for sync tests (no ssh-keygen needed). */
import { generateKeyPairSync } from 'node:crypto';
import { fpr16, signSshSignature, type SshPrivateKey } from '../../../src/core/sshsig.js';

const sshString = (b: Uint8Array): Buffer => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, Buffer.from(b)]);
};

/** A fresh Ed25519 signing key in the shape the SSHSIG module takes. */
export function testKey(comment = 'test'): SshPrivateKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const blob = Buffer.concat([sshString(Buffer.from('ssh-ed25519')), sshString(raw)]);
  return { publicKey: { type: 'ssh-ed25519', raw, blob, base64: blob.toString('base64') }, comment, keyObject: privateKey };
}

/** The fpr16 a sidecar name carries for this key. */
export const keyFpr = (key: SshPrivateKey): string => fpr16(key.publicKey.base64);

/** A real signature sidecar (`<id>.sig.<fpr16>`, namespace tik-event) over the event's bytes. */
export function signatureSidecar(key: SshPrivateKey, id: string, eventBytes: Uint8Array): { name: string; bytes: Buffer } {
  return { name: `${id}.sig.${keyFpr(key)}`, bytes: Buffer.from(signSshSignature(key, eventBytes, 'tik-event'), 'utf8') };
}

/** A real witness sidecar (`<id>.witness.<fpr16>`, namespace tik-witness). */
export function witnessSidecar(key: SshPrivateKey, id: string, eventBytes: Uint8Array): { name: string; bytes: Buffer } {
  return { name: `${id}.witness.${keyFpr(key)}`, bytes: Buffer.from(signSshSignature(key, eventBytes, 'tik-witness'), 'utf8') };
}
