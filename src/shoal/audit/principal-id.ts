import type { Principal } from '../auth/principal.js';

/**
 * What the audit log records for a request refused before authentication named a principal (a
 * wrong Host, missing or bad credentials). Distinct from `anonymous`, the principal of
 * `auth.provider: none`.
 */
export const UNAUTHENTICATED = 'unauthenticated';

/** The one place a request's principal becomes an audit `principal`. */
export function principalIdOf(req: { readonly principal?: Principal | undefined }): string {
  return req.principal?.id ?? UNAUTHENTICATED;
}
