/**
 * `shoal token create|list|revoke` and `shoal user add|list|remove`: the operator manages access
 * tokens and basic users in the registry the config names (the same store every instance of the
 * fleet reads). A token's secret is printed once, to stdout; a password is read from stdin
 * (`--password-stdin`) or the environment (`SHOAL_USER_PASSWORD`), never from an argument (argv is
 * visible to every user of the machine) and never printed.
 */
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { addUser, issueToken, publicToken, publicUser } from '../../auth/credential-admin.js';
import { loadConfig } from '../../check/load-config.js';
import type { RoleConfig } from '../../config/model.js';
import { ShoalError } from '../../errors.js';
import { EMBEDDED_REGISTRY_URL } from '../../instance/instance.js';
import { openIdentityStore, type IdentityStore } from '../../registry/identity-store.js';
import { openRegistry } from '../../registry/open-registry.js';
import { collectVar } from './open-instance.js';

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

/** The identity store and the roles known (config ∪ registry) for a config file. */
async function open(configPath: string): Promise<{ store: IdentityStore; roles: readonly RoleConfig[] }> {
  const path = resolve(configPath);
  const { config } = loadConfig({ path });
  const url = config.stateful.control_plane.tenant_url ?? EMBEDDED_REGISTRY_URL;
  const baseDir = dirname(path);
  const registry = await openRegistry(url, { baseDir });
  let registered: readonly RoleConfig[];
  try {
    registered = (await registry.snapshot()).catalog.roles;
  } finally {
    await registry.close();
  }
  const roles = [...config.roles, ...registered.filter((r) => !config.roles.some((c) => c.id === r.id))];
  // held to the registry just read: the roles checked above are the ones of the registry written
  return { store: await openIdentityStore(url, registry.identity, { baseDir }), roles };
}

async function withStore<T>(configPath: string, fn: (store: IdentityStore, roles: readonly RoleConfig[]) => Promise<T>): Promise<T> {
  const { store, roles } = await open(configPath);
  try {
    return await fn(store, roles);
  } finally {
    await store.close();
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

export function registerCredentials(program: Command): void {
  const token = program.command('token').description('access tokens (Authorization: Bearer shoal_pat_…), accepted under every auth provider');
  token
    .command('create')
    .description('create a token; its secret is printed once and cannot be shown again')
    .requiredOption('--config <file>', 'the YAML config file')
    .requiredOption('--name <name>', 'what the token is for, e.g. nightly-report')
    .requiredOption('--role <role>', 'a role the token may act as (repeatable)', collect, [])
    .option('--default-role <role>', 'the role used when a request names none (default: the first --role)')
    .option('--var <name=value>', 'a session value its queries carry, e.g. provisa.user_region=eu (repeatable)', collectVar, {})
    .option('--expires-in-days <days>', 'expire after this many days', (v) => Number.parseInt(v, 10))
    .option('--expires-at <instant>', 'expire at this ISO instant')
    .option('--json', 'print the token record and its secret as JSON')
    .action(async (o: { config: string; name: string; role: string[]; defaultRole?: string; var: Record<string, string>; expiresInDays?: number; expiresAt?: string; json?: boolean }) => {
      if (o.expiresInDays !== undefined && o.expiresAt !== undefined) throw new ShoalError('BAD_REQUEST', 'give --expires-in-days or --expires-at, not both');
      if (o.expiresInDays !== undefined && (!Number.isInteger(o.expiresInDays) || o.expiresInDays < 1)) throw new ShoalError('BAD_REQUEST', '--expires-in-days takes a whole number of days, 1 or more');
      const now = new Date();
      const expiresAt = o.expiresInDays !== undefined ? new Date(now.getTime() + o.expiresInDays * 86_400_000).toISOString() : o.expiresAt;
      const { token: t, secret } = await withStore(o.config, (store, roles) =>
        issueToken(store, { name: o.name, roles: o.role, ...(o.defaultRole ? { defaultRole: o.defaultRole } : {}), vars: o.var, ...(expiresAt ? { expiresAt } : {}), createdBy: 'operator:local' }, roles, now),
      );
      if (o.json) process.stdout.write(`${JSON.stringify({ ...publicToken(t), token: secret })}\n`);
      else {
        process.stdout.write(`${secret}\n`);
        process.stderr.write(`created token ${t.id} (${t.name}) for roles ${t.roles.join(', ')}${t.expiresAt ? `, expires ${t.expiresAt}` : ', no expiry'}\n` +
          'this secret is shown once; send it as: Authorization: Bearer <secret>\n');
      }
    });
  token
    .command('list')
    .description('list tokens (never their secrets)')
    .requiredOption('--config <file>', 'the YAML config file')
    .option('--json', 'print {tokens: [...]}')
    .action(async (o: { config: string; json?: boolean }) => {
      const tokens = (await withStore(o.config, (store) => store.listTokens())).map(publicToken);
      if (o.json) process.stdout.write(`${JSON.stringify({ tokens })}\n`);
      else for (const t of tokens) process.stdout.write(`${t.id}  ${t.name}  roles=${t.roles.join(',')}  expires=${t.expires_at ?? 'never'}${t.revoked_at ? `  revoked=${t.revoked_at}` : ''}\n`);
    });
  token
    .command('revoke')
    .description('revoke a token by id (tok_…); it is refused from then on')
    .requiredOption('--config <file>', 'the YAML config file')
    .argument('<id>', 'the token id, as token list shows it')
    .action(async (id: string, o: { config: string }) => {
      const done = await withStore(o.config, (store) => store.revokeToken(id, new Date().toISOString()));
      if (!done) throw new ShoalError('NOT_FOUND', `no live token "${id}"`, { hint: 'shoal token list shows the tokens' });
      process.stderr.write(`revoked ${id}\n`);
    });

  const user = program.command('user').description('users for auth.provider: basic (Authorization: Basic)');
  user
    .command('add')
    .description('add a user; the password comes from --password-stdin or SHOAL_USER_PASSWORD, never an argument')
    .requiredOption('--config <file>', 'the YAML config file')
    .argument('<username>')
    .requiredOption('--role <role>', 'a role the user may act as (repeatable)', collect, [])
    .option('--default-role <role>', 'the role used when a request names none (default: the first --role)')
    .option('--var <name=value>', 'a session value the user\'s queries carry (repeatable)', collectVar, {})
    .option('--password-stdin', 'read the password from stdin')
    .action(async (username: string, o: { config: string; role: string[]; defaultRole?: string; var: Record<string, string>; passwordStdin?: boolean }) => {
      const password = o.passwordStdin ? await readStdin() : process.env.SHOAL_USER_PASSWORD;
      if (password === undefined || password === '') throw new ShoalError('BAD_REQUEST', 'no password given', { hint: 'pipe it with --password-stdin, or set SHOAL_USER_PASSWORD' });
      const u = await withStore(o.config, (store, roles) => addUser(store, { username, password, roles: o.role, ...(o.defaultRole ? { defaultRole: o.defaultRole } : {}), vars: o.var }, roles));
      process.stderr.write(`added user ${u.username} with roles ${u.roles.join(', ')}\n`);
    });
  user
    .command('list')
    .description('list users (never their password hashes)')
    .requiredOption('--config <file>', 'the YAML config file')
    .option('--json', 'print {users: [...]}')
    .action(async (o: { config: string; json?: boolean }) => {
      const users = (await withStore(o.config, (store) => store.listUsers())).map(publicUser);
      if (o.json) process.stdout.write(`${JSON.stringify({ users })}\n`);
      else for (const u of users) process.stdout.write(`${u.username}  roles=${u.roles.join(',')}\n`);
    });
  user
    .command('remove')
    .description('remove a user')
    .requiredOption('--config <file>', 'the YAML config file')
    .argument('<username>')
    .action(async (username: string, o: { config: string }) => {
      if (!(await withStore(o.config, (store) => store.removeUser(username)))) throw new ShoalError('NOT_FOUND', `no user "${username}"`, { hint: 'shoal user list shows the users' });
      process.stderr.write(`removed ${username}\n`);
    });
}
