/**
 * Personal access tokens / API keys: `shoal_pat_` followed by 43 url-safe base64 characters
 * (32 random bytes). The prefix routes a presented secret to the token store (whatever the
 * provider) and makes a leaked token easy to find; only the SHA-256 of the secret is stored, so a
 * registry dump holds no working credential. The secret is shown once, at creation.
 */
import { createHash, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = 'shoal_pat_';

const TOKEN_SHAPE = /^shoal_pat_[A-Za-z0-9_-]{43}$/;

export interface MintedToken {
  /** Public id, for listing and revoking. */
  readonly id: string;
  /** The credential: shown once, never stored. */
  readonly secret: string;
  readonly secretSha256: string;
}

export function mintToken(): MintedToken {
  const secret = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { id: `tok_${randomBytes(8).toString('hex')}`, secret, secretSha256: tokenSha256(secret) };
}

/** Whether a bearer credential claims to be a token (it then never falls through to the OIDC verifier). */
export function looksLikeToken(credential: string): boolean {
  return credential.startsWith(TOKEN_PREFIX);
}

/** Whether a credential has the exact shape of a minted token (checked before any store lookup). */
export function isWellFormedToken(credential: string): boolean {
  return TOKEN_SHAPE.test(credential);
}

export function tokenSha256(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
