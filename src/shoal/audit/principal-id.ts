import type { Principal } from '../auth/principal.js';

/** What the audit log records for a request no authentication step has named. */
export const ANONYMOUS = 'anonymous';

/** The one place a request's principal becomes an audit `principal`. */
export function principalIdOf(req: { readonly principal?: Principal | undefined }): string {
  return req.principal?.id ?? ANONYMOUS;
}
