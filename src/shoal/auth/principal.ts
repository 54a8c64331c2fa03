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
  /** Session values from the identity (claims, user attributes); RLS reads these. */
  readonly vars: Readonly<Record<string, string>>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook before any route handler runs. */
    principal?: Principal;
  }
}
