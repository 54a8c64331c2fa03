/**
 * Signatures by key types we do not verify in process (RSA, ECDSA, security keys) fall back to
 * the real `ssh-keygen -Y verify`, as upstream does (tik-model.md §8.4). Trust (is the key
 * listed for this actor and namespace) is decided in process before this is called; ssh-keygen
 * only checks the cryptography, against a one-line allowed-signers file for that key. Scratch
 * files live in a private temporary directory, never in the store, and are always removed.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type FallbackResult = { readonly ok: true } | { readonly ok: false; readonly reason: string; readonly unavailable: boolean };

/** The principal used in the scratch allowed-signers file (trust was already checked). */
const SCRATCH_PRINCIPAL = 'tik-verify';

export async function sshKeygenVerify(
  signature: Uint8Array,
  message: Uint8Array,
  namespace: string,
  keyType: string,
  keyBase64: string,
): Promise<FallbackResult> {
  const dir = await mkdtemp(join(tmpdir(), 'tik-sshsig-'));
  try {
    const allowed = join(dir, 'allowed_signers');
    const sig = join(dir, 'message.sig');
    await writeFile(allowed, `${SCRATCH_PRINCIPAL} namespaces="${namespace}" ${keyType} ${keyBase64}\n`);
    await writeFile(sig, signature);
    return await new Promise<FallbackResult>((resolve) => {
      const child = spawn('ssh-keygen', ['-Y', 'verify', '-f', allowed, '-I', SCRATCH_PRINCIPAL, '-n', namespace, '-s', sig], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('error', (e: NodeJS.ErrnoException) =>
        resolve({ ok: false, unavailable: true, reason: `ssh-keygen is needed to verify ${keyType} signatures (${e.code ?? e.message})` }),
      );
      child.on('close', (code) => {
        if (code === 0) resolve({ ok: true });
        else resolve({ ok: false, unavailable: false, reason: `ssh-keygen rejects the ${keyType} signature: ${out.trim().split('\n').pop() ?? ''}` });
      });
      child.stdin.on('error', () => undefined); // ssh-keygen may exit before reading everything
      child.stdin.end(Buffer.from(message));
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
