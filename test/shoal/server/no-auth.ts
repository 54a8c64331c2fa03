import { createAuthenticator } from '../../../src/shoal/auth/authenticator.js';
import type { EdgeAuth } from '../../../src/shoal/auth/edge-auth.js';
import { checkAuth } from '../../../src/shoal/config/auth-checks.js';
import { makeRole } from '../../../src/shoal/config/model.js';

/** `auth: {provider: none}` for HTTP tests that are not about authentication: roles admin and analyst. */
export function noAuth(): EdgeAuth {
  const config = checkAuth({ provider: 'none', default_role: 'analyst' }, []).auth;
  const roles = [makeRole({ id: 'admin', capabilities: ['admin'] }), makeRole({ id: 'analyst', capabilities: ['query_development'] })];
  return { authenticator: createAuthenticator({ auth: config }), config, roles: async () => roles };
}
