/**
 * Users (for `provider: basic`) and access tokens, in the control-plane registry's database so
 * every instance of a fleet accepts the same credentials (S2). Kept in their own tables, outside
 * the catalog and its epoch: a password change or a new token is not a catalog change.
 *
 * Only derived values are stored: a password as its scrypt hash (salt and cost beside it, see
 * src/shoal/auth/password-hash.ts), a token as the SHA-256 of its secret. Nothing here can be
 * turned back into a working credential.
 */
import { redactUrl } from '../../core/sql/sql-url.js';
import type { SqlClient, SqlExecutor } from '../../core/sql/sql-client.js';
import { deepFreeze } from '../config/model.js';
import { ShoalError } from '../errors.js';
import { openIdentityCheckedClient } from './identity-checked-client.js';
import type { RegistryIdentity } from './registry-identity.js';

export interface UserRecord {
  readonly username: string;
  /** `scrypt$N$r$p$salt$hash` (base64). Never logged, never returned by an API. */
  readonly passwordHash: string;
  readonly roles: readonly string[];
  readonly defaultRole?: string;
  /** Session values this user's queries carry (canonical names). */
  readonly vars: Readonly<Record<string, string>>;
  /** ISO instant. */
  readonly createdAt: string;
}

export interface TokenRecord {
  /** Public id (`tok_…`): listed, used to revoke; not a credential. */
  readonly id: string;
  readonly name: string;
  /** Hex SHA-256 of the secret. */
  readonly secretSha256: string;
  readonly roles: readonly string[];
  readonly defaultRole?: string;
  readonly vars: Readonly<Record<string, string>>;
  /** Who created it (a principal id). */
  readonly createdBy: string;
  readonly createdAt: string;
  readonly expiresAt?: string;
  readonly revokedAt?: string;
}

export interface IdentityStore {
  addUser(user: UserRecord): Promise<void>;
  getUser(username: string): Promise<UserRecord | undefined>;
  listUsers(): Promise<readonly UserRecord[]>;
  /** False when there was no such user. */
  removeUser(username: string): Promise<boolean>;
  addToken(token: TokenRecord): Promise<void>;
  findToken(secretSha256: string): Promise<TokenRecord | undefined>;
  listTokens(): Promise<readonly TokenRecord[]>;
  /** Marks it revoked at `at`; false when there is no such token or it was already revoked. */
  revokeToken(id: string, at: string): Promise<boolean>;
  close(): Promise<void>;
}

const DDL = `
CREATE TABLE IF NOT EXISTS auth_users (
  username TEXT PRIMARY KEY,
  password_hash TEXT NOT NULL,
  roles TEXT NOT NULL,
  default_role TEXT,
  vars TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS auth_tokens (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  secret_sha256 TEXT NOT NULL UNIQUE,
  roles TEXT NOT NULL,
  default_role TEXT,
  vars TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  revoked_at TEXT
);
`;

/** Create the identity tables if missing (PostgreSQL: concurrent starts serialise on an advisory lock). */
export async function migrateIdentityStore(client: SqlClient): Promise<void> {
  await client.transaction(async (tx) => {
    if (tx.dialect === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(7407351903)');
    await tx.exec(DDL);
  });
}

/**
 * Open the identity store in the registry database named by `url` (as `control_plane.tenant_url`),
 * the registry opened there as `identity`: a deleted or replaced registry refuses its writes.
 */
export async function openIdentityStore(url: string, identity: RegistryIdentity, options: { readonly baseDir?: string } = {}): Promise<IdentityStore> {
  const client = await openIdentityCheckedClient(url, identity, { ...(options.baseDir === undefined ? {} : { baseDir: options.baseDir }), max: 2 });
  try {
    await migrateIdentityStore(client);
  } catch (e) {
    await client.close().catch(() => undefined);
    if (e instanceof ShoalError) throw e;
    throw new ShoalError('REGISTRY_UNAVAILABLE', `cannot open the users and tokens of the registry at ${redactUrl(url)}: ${(e as Error).message}`, {
      where: 'control_plane.tenant_url',
      hint: 'check that the registry database is reachable and the URL is right',
      cause: e,
    });
  }
  return new SqlIdentityStore(client);
}

type Row = Record<string, unknown>;

const str = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : String(v));
const list = (v: unknown): string[] => (JSON.parse(String(v)) as unknown[]).map(String);
const map = (v: unknown): Record<string, string> => Object.fromEntries(Object.entries(JSON.parse(String(v)) as Record<string, unknown>).map(([k, x]) => [k, String(x)]));

function userOf(r: Row): UserRecord {
  const defaultRole = str(r.default_role);
  return deepFreeze({
    username: String(r.username),
    passwordHash: String(r.password_hash),
    roles: list(r.roles),
    ...(defaultRole === undefined ? {} : { defaultRole }),
    vars: map(r.vars),
    createdAt: String(r.created_at),
  });
}

function tokenOf(r: Row): TokenRecord {
  const opt = (k: string, v: string | undefined) => (v === undefined ? {} : { [k]: v });
  return deepFreeze({
    id: String(r.id),
    name: String(r.name),
    secretSha256: String(r.secret_sha256),
    roles: list(r.roles),
    ...opt('defaultRole', str(r.default_role)),
    vars: map(r.vars),
    createdBy: String(r.created_by),
    createdAt: String(r.created_at),
    ...opt('expiresAt', str(r.expires_at)),
    ...opt('revokedAt', str(r.revoked_at)),
  }) as TokenRecord;
}

class SqlIdentityStore implements IdentityStore {
  constructor(private readonly client: SqlClient) {}

  async addUser(u: UserRecord): Promise<void> {
    await this.insert(this.client, 'user', u.username, 'INSERT INTO auth_users (username, password_hash, roles, default_role, vars, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
      u.username, u.passwordHash, JSON.stringify(u.roles), u.defaultRole ?? null, JSON.stringify(u.vars), u.createdAt,
    ]);
  }

  async getUser(username: string): Promise<UserRecord | undefined> {
    const rows = await this.client.query('SELECT * FROM auth_users WHERE username = ?', [username]);
    return rows[0] ? userOf(rows[0]) : undefined;
  }

  async listUsers(): Promise<readonly UserRecord[]> {
    return (await this.client.query('SELECT * FROM auth_users ORDER BY username')).map(userOf);
  }

  async removeUser(username: string): Promise<boolean> {
    return (await this.client.run('DELETE FROM auth_users WHERE username = ?', [username])).rowCount > 0;
  }

  async addToken(t: TokenRecord): Promise<void> {
    await this.insert(
      this.client,
      'token',
      t.id,
      'INSERT INTO auth_tokens (id, name, secret_sha256, roles, default_role, vars, created_by, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [t.id, t.name, t.secretSha256, JSON.stringify(t.roles), t.defaultRole ?? null, JSON.stringify(t.vars), t.createdBy, t.createdAt, t.expiresAt ?? null, t.revokedAt ?? null],
    );
  }

  async findToken(secretSha256: string): Promise<TokenRecord | undefined> {
    const rows = await this.client.query('SELECT * FROM auth_tokens WHERE secret_sha256 = ?', [secretSha256]);
    return rows[0] ? tokenOf(rows[0]) : undefined;
  }

  async listTokens(): Promise<readonly TokenRecord[]> {
    return (await this.client.query('SELECT * FROM auth_tokens ORDER BY created_at, id')).map(tokenOf);
  }

  async revokeToken(id: string, at: string): Promise<boolean> {
    return (await this.client.run('UPDATE auth_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [at, id])).rowCount > 0;
  }

  close(): Promise<void> {
    return this.client.close();
  }

  private async insert(q: SqlExecutor, what: string, id: string, sql: string, params: (string | null)[]): Promise<void> {
    try {
      await q.run(sql, params);
    } catch (e) {
      if (e instanceof ShoalError) throw e; // REGISTRY_REPLACED: not the registry this store opened
      // both drivers report a primary-key clash as a unique violation; anything else is an outage
      if (/unique|duplicate/i.test((e as Error).message)) {
        throw new ShoalError('IDENTITY_EXISTS', `a ${what} "${id}" already exists`, { hint: what === 'user' ? 'remove it first (shoal user remove) or choose another name' : 'retry: token ids are random' });
      }
      throw new ShoalError('REGISTRY_UNAVAILABLE', `cannot store the ${what}: ${(e as Error).message}`, { cause: e });
    }
  }
}
