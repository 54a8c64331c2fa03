import type { SshPrivateKey } from '../../core/sshsig.js';
import { TikError } from '../errors.js';
import type { CliContext } from './context.js';
import { envSigningKey } from './signing-key.js';

/** The signing key of a verb that cannot work without one (`sign`, `witness`, `root --witness`): `--key`, else `TIK_KEY`. */
export function requireSigningKey(ctx: CliContext, explicit?: string): SshPrivateKey {
  const key = envSigningKey(ctx, explicit);
  if (key) return key;
  throw new TikError('cli/usage', 'no signing key: pass --key FILE or set TIK_KEY', {
    where: '--key',
    hint: 'create one with ssh-keygen -t ed25519 -N "" -f tik-key, and register it with tik actor add <name> tik-key.pub',
  });
}
