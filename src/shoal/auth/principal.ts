/**
 * Who is asking. Every network request is authenticated at the edge (src/shoal/server) into one
 * Principal before any route runs; the roles it may act as and the session values RLS reads come
 * from here, never from what the client claims (law S7).
 */
export type PrincipalKind =
  /** `auth.provider: none` — the operator chose no authentication (warned at start, shown in /health). */
  | 'anonymous'
  /** A JWT bearer verified against the configured issuer's keys. */
  | 'oidc'
  /** A user of the registry, by password. */
  | 'basic'
  /** A personal access token / API key minted by an admin. */
  | 'token'
  /** The local CLI: it already holds the config and its secrets, so it may act as any role. */
  | 'operator';

export interface Principal {
  /** Stable subject id, unique across kinds (e.g. `oidc:<iss>#<sub>`, `user:alice`, `token:<id>`). */
  readonly id: string;
  readonly kind: PrincipalKind;
  /** Role ids this principal may act as; `'*'` only for the operator and `provider: none`. */
  readonly roles: readonly string[] | '*';
  /** The role used when the request names none. */
  readonly defaultRole?: string;
  /** Session values from the identity (claims, user attributes); RLS reads these. Canonical names. */
  readonly vars: Readonly<Record<string, string>>;
  /**
   * Upstream's `role_id:domain_id` assignments: a role listed here may be used only on these
   * domains (a role absent here, or assigned with `'*'`, is not limited).
   */
  readonly scopes?: Readonly<Record<string, readonly string[]>>;
}

/** Whether the client may set any session variable (the operator, and everyone under `provider: none`). */
export function setsAnyVar(p: Principal): boolean {
  return p.kind === 'operator' || p.kind === 'anonymous';
}

/** The local CLI's principal: it holds the config and its secrets already. */
export const OPERATOR: Principal = Object.freeze({ id: 'operator:local', kind: 'operator', roles: '*', vars: Object.freeze({}) });

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook before any route handler runs. */
    principal?: Principal;
  }
}
