import { readFileSync } from 'node:fs';
import { parseOpenSshPrivateKey, type SshPrivateKey } from '../../core/sshsig.js';
import { TikError } from '../errors.js';
import type { EventStore } from '../store/store.js';
import type { CliContext } from './context.js';

// Apart from store-access.ts so that start-up does not load the key parser (and node:crypto):
// only the verbs that sign import this module.

let cachedKey: { path: string; key: SshPrivateKey } | undefined;

/** The signing key named by `TIK_KEY` (an unencrypted OpenSSH Ed25519 private key file), if any. */
export function envSigningKey(ctx: CliContext, explicit?: string): SshPrivateKey | undefined {
  const path = explicit ?? ctx.io.env.TIK_KEY;
  if (path === undefined || path === '') return undefined;
  const full = ctx.path(path);
  if (cachedKey?.path === full) return cachedKey.key;
  let text: string;
  try {
    text = readFileSync(full, 'utf8');
  } catch {
    const where = explicit !== undefined ? '--key' : 'TIK_KEY';
    throw new TikError('cli/no-file', `${where}: cannot read ${path}`, { where, hint: 'give an OpenSSH ed25519 private key file' });
  }
  const key = parseOpenSshPrivateKey(text, path);
  cachedKey = { path: full, key };
  return key;
}

/** Write the `<id>.sig.<fpr16>` authorship sidecar for an event (namespace `tik-event`). */
export async function signStoredEvent(store: EventStore, ticket: string, id: string, key: SshPrivateKey): Promise<string> {
  const { signEvent } = await import('../verify/index.js');
  return (await signEvent(store, ticket, id, key)).name;
}
