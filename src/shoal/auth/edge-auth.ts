/**
 * What the HTTP edge needs to authenticate and authorize requests: the authenticator, the `auth:`
 * config (session-variable policy), the registered roles (grants and capabilities are checked
 * against them) and, where the instance has a registry, its users and tokens (the admin API).
 */
import type { AuthConfig } from '../config/auth-config.js';
import type { RoleConfig } from '../config/model.js';
import type { IdentityStore } from '../registry/identity-store.js';
import type { Authenticator } from './authenticator.js';

export interface EdgeAuth {
  readonly authenticator: Authenticator;
  readonly config: AuthConfig;
  /** The roles registered now. */
  roles(): Promise<readonly RoleConfig[]>;
  readonly store?: IdentityStore;
}

/** The warning `provider: none` gets at every start and in `/health`. */
export const AUTH_OFF_WARNING =
  'authentication is off (auth.provider: none): any client that reaches this port may act as any role and set any session variable';
