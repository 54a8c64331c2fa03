/**
 * What a source registered through the admin API may reach (ARCHITECTURE.md S7: admin actions
 * cannot reach files, secrets or hosts the operator did not allow). Sources from the config file
 * loaded at start are the operator's and are never checked here; this is the admin edge's check,
 * called once per registration before anything is written to the registry.
 *
 * - Files: a file source (csv, parquet, json, sqlite, tik) reads only under `admin.file_roots`.
 *   The path is resolved (relative to the config file's directory, `..` included) and then
 *   realpath'd, so a symbolic link under a root that points outside is refused; the registry
 *   stores the real path, so a link swapped in later along the way is never followed. No URLs
 *   (`s3://`, `http://`, `file:`) and no wildcards: a glob could match files nobody checked.
 * - Hosts: a PostgreSQL or MySQL/MariaDB source (landed or attached) connects only to an
 *   `admin.allowed_hosts` entry (`host` = any port, `host:port` = that port). Checked before any
 *   connection is attempted: the registry never holds a source it refused.
 * - Secrets: no `${env:…}` reference anywhere in the source (only the config file may name the
 *   environment), so no admin can make the server send a secret to a host of their choosing.
 * - The control plane: never the registry (its SQLite file and journals, its PostgreSQL database)
 *   nor the MV snapshot store, whatever the roots and hosts allow.
 *
 * Unset (or empty) lists allow nothing: the admin API then registers no file source and no
 * network source at all, and the error names the key that would allow it.
 */
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { parseSqlUrl } from '../../core/sql/sql-url.js';
import { HOST_ENTRY } from '../config/config-schema.js';
import { DERIVED_SOURCE_ID, type AdminConfig, type CatalogModel, type SourceConfig, type SourceType, type TableConfig } from '../config/model.js';
import { ShoalError } from '../errors.js';

export interface AdminSourcePolicyOptions {
  /** `admin:` from the config file; absent = no file or network source may be registered. */
  readonly admin?: AdminConfig | undefined;
  /** What relative paths (roots, source paths) resolve against: the config file's directory. */
  readonly baseDir: string;
  /** The control-plane registry URL (`sqlite:///…` or `postgresql://…`): never a source. */
  readonly registryUrl?: string;
  /** The MV snapshot store directory: never read by a source. */
  readonly mvStoreDir?: string;
}

const FILE_TYPES: ReadonlySet<SourceType> = new Set(['csv', 'parquet', 'json', 'sqlite', 'tik']);
const DEFAULT_PORTS: Readonly<Partial<Record<SourceType, number>>> = { postgresql: 5432, mysql: 3306, mariadb: 3306 };
/** File sources whose directory path holds one `<table>.<ext>` per registered table. */
const DIRECTORY_EXTENSIONS: Readonly<Partial<Record<SourceType, string>>> = { csv: 'csv', parquet: 'parquet', json: 'json' };
const ENV_REFERENCE = /\$\{\s*env\s*:/i;
const URL_LIKE = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const WILDCARD = /[*?[\]{}]/;
const MAX_PATH = 4096;

interface HostEntry {
  readonly host: string;
  readonly port?: number;
}

interface ServerTarget {
  readonly host: string;
  readonly port: number;
  readonly database?: string;
}

/** The admin API's source policy; build one per instance (see ShoalInstance.adminPolicy). */
export class AdminSourcePolicy {
  private readonly roots: readonly string[];
  private readonly hosts: readonly HostEntry[];
  private readonly registryFile: string | undefined;
  private readonly registryServer: ServerTarget | undefined;

  constructor(private readonly options: AdminSourcePolicyOptions) {
    this.roots = (options.admin?.file_roots ?? []).map((r) => resolve(options.baseDir, r));
    this.hosts = (options.admin?.allowed_hosts ?? []).map(parseHostEntry);
    const target = registryTarget(options.registryUrl, options.baseDir);
    this.registryFile = target?.file;
    this.registryServer = target?.server;
  }

  /** A policy that allows no file and no network source (an admin target that names none). */
  static denyAll(): AdminSourcePolicy {
    return new AdminSourcePolicy({ baseDir: process.cwd() });
  }

  /**
   * Check a source an admin asks to register. Returns it as it may be stored (a file path made
   * absolute and real); throws ShoalError ADMIN_ENV_REFUSED, ADMIN_SOURCES_DISABLED,
   * ADMIN_PATH_REFUSED, ADMIN_HOST_REFUSED or ADMIN_PROTECTED_TARGET.
   */
  async checkSource(source: SourceConfig): Promise<SourceConfig> {
    const where = `source ${source.id}`;
    for (const [key, value] of Object.entries(source)) {
      if (typeof value === 'string' && ENV_REFERENCE.test(value)) {
        throw new ShoalError('ADMIN_ENV_REFUSED', `${where}: ${key} holds an \${env:…} reference; sources registered through the admin API may not read the server's environment`, {
          where: `${where}.${key}`,
          hint: 'write the value itself (no secrets: an admin source has no password), or declare the source in the config file loaded at start',
        });
      }
    }
    if (source.base_url !== undefined) {
      throw new ShoalError('ADMIN_HOST_REFUSED', `${where}: base_url is not used by any shoal source type and is refused through the admin API`, {
        where: `${where}.base_url`,
        hint: 'remove base_url',
      });
    }
    if (FILE_TYPES.has(source.type)) {
      if (source.path === undefined || source.path === '') return source; // the catalog check reports the missing path
      return { ...source, path: await this.checkPath(source.path, `${where}.path`, source.type) };
    }
    await this.checkServer(source, where);
    return source;
  }

  /**
   * Check a table an admin asks to register: on a directory source (csv, parquet, json) its name
   * picks a file, which must be a plain `<table>.<ext>` in that directory (no `..`, no separator)
   * and, realpath'd, stay inside the directory or under a root and off the control plane.
   */
  async checkTable(table: TableConfig, catalog: Pick<CatalogModel, 'sources'>): Promise<void> {
    if (table.source_id === DERIVED_SOURCE_ID) return;
    const source = catalog.sources.find((s) => s.id === table.source_id);
    const ext = source ? DIRECTORY_EXTENSIONS[source.type] : undefined;
    if (!source || ext === undefined || !source.path || URL_LIKE.test(source.path)) return;
    const dir = resolve(this.options.baseDir, source.path);
    const isDir = await stat(dir).then((s) => s.isDirectory(), () => false);
    if (!isDir) return;
    const where = `table ${table.domain_id}.${table.alias ?? table.table}.table`;
    const name = table.table;
    if (name === '.' || name === '..' || /[/\\\0]/.test(name) || WILDCARD.test(name)) {
      throw new ShoalError('ADMIN_PATH_REFUSED', `${where}: "${name}" names a file of the directory source ${source.id}, so it must be a plain file name (no /, \\, .., or wildcards)`, {
        where,
        hint: `name the table after a ${ext} file directly inside ${source.id}'s directory`,
      });
    }
    const file = join(dir, `${name}.${ext}`);
    const real = await realpath(file).catch(() => undefined);
    if (real === undefined) {
      throw new ShoalError('ADMIN_PATH_REFUSED', `${where}: the file ${name}.${ext} does not exist in the directory of source ${source.id}`, {
        where,
        hint: 'create the file first, then register the table',
      });
    }
    const realDir = await realpath(dir);
    const roots = await this.realRoots();
    if (!within(real, realDir) && !roots.some((r) => within(real, r))) {
      throw new ShoalError('ADMIN_PATH_REFUSED', `${where}: ${name}.${ext} is a link that leads outside the directory of source ${source.id} and every admin.file_roots entry`, {
        where,
        hint: 'replace the link with the file itself, or register the table in the config file',
      });
    }
    await this.refuseProtected(real, where);
  }

  private async checkPath(path: string, where: string, type: SourceType): Promise<string> {
    if (this.roots.length === 0) {
      throw new ShoalError('ADMIN_SOURCES_DISABLED', `${where}: the admin API may not register ${type} sources because admin.file_roots is not set`, {
        where,
        hint: 'list the directories admin-registered sources may read under admin.file_roots in the config file, or declare this source there',
      });
    }
    if (path.length > MAX_PATH || path.includes('\0')) {
      throw new ShoalError('ADMIN_PATH_REFUSED', `${where}: not a usable file path`, { where, hint: `give a local path of at most ${MAX_PATH} characters` });
    }
    if (URL_LIKE.test(path)) {
      throw new ShoalError('ADMIN_PATH_REFUSED', `${where}: "${path}" is a URL; admin-registered sources read local files only`, {
        where,
        hint: 'give a file path under one of admin.file_roots',
      });
    }
    if (WILDCARD.test(path)) {
      throw new ShoalError('ADMIN_PATH_REFUSED', `${where}: wildcards are not accepted through the admin API (a glob can match files nobody checked)`, {
        where,
        hint: 'give one file, or a directory holding one <table> file per table',
      });
    }
    const abs = resolve(this.options.baseDir, path);
    const outside = (): ShoalError =>
      new ShoalError('ADMIN_PATH_REFUSED', `${where}: ${path} is outside every admin.file_roots entry`, {
        where,
        hint: `put the file under one of ${this.roots.join(', ')}, or add its directory to admin.file_roots in the config file`,
      });
    // lexically first: a path plainly outside the roots is refused without touching the file system
    if (!this.roots.some((r) => within(abs, r))) throw outside();
    const real = await realpath(abs).catch(() => undefined);
    if (real === undefined) {
      throw new ShoalError('ADMIN_PATH_REFUSED', `${where}: ${path} does not exist`, { where, hint: 'create the file (or store) first, then register the source' });
    }
    const roots = await this.realRoots();
    if (!roots.some((r) => within(real, r))) {
      throw new ShoalError('ADMIN_PATH_REFUSED', `${where}: ${path} leads outside every admin.file_roots entry through a symbolic link`, {
        where,
        hint: 'register the file the link points to from inside a root, or replace the link with the file',
      });
    }
    await this.refuseProtected(real, where);
    return real;
  }

  private async checkServer(source: SourceConfig, where: string): Promise<void> {
    if (this.hosts.length === 0) {
      throw new ShoalError('ADMIN_SOURCES_DISABLED', `${where}: the admin API may not register ${source.type} sources because admin.allowed_hosts is not set`, {
        where: `${where}.host`,
        hint: 'list the host or host:port entries admin-registered sources may connect to under admin.allowed_hosts in the config file, or declare this source there',
      });
    }
    if (source.host === undefined || source.host === '') return; // the catalog check reports the missing host
    const host = normaliseHost(source.host);
    if (host === undefined) {
      throw new ShoalError('ADMIN_HOST_REFUSED', `${where}: host "${source.host}" is not a host name or address (sockets and URLs are refused through the admin API)`, {
        where: `${where}.host`,
        hint: 'give a host name or IP address listed in admin.allowed_hosts',
      });
    }
    const port = source.port !== undefined && source.port !== 0 ? source.port : (DEFAULT_PORTS[source.type] ?? 0);
    if (!this.hosts.some((e) => e.host === host && (e.port === undefined || e.port === port))) {
      throw new ShoalError('ADMIN_HOST_REFUSED', `${where}: ${source.host}:${port} is not in admin.allowed_hosts`, {
        where: `${where}.host`,
        hint: 'connect to a host the operator listed in admin.allowed_hosts, or ask the operator to add it',
      });
    }
    const reg = this.registryServer;
    if (source.type === 'postgresql' && reg && sameServer(host, port, reg) && (source.database === undefined || source.database === reg.database)) {
      throw new ShoalError('ADMIN_PROTECTED_TARGET', `${where}: ${source.host}:${port}/${source.database ?? '(default database)'} is the control-plane registry, which is never a source`, {
        where: `${where}.database`,
        hint: 'name a database other than the registry’s',
      });
    }
  }

  /** The registry file (and its journals) and the MV store are never read, whatever the roots allow. */
  private async refuseProtected(real: string, where: string): Promise<void> {
    const guarded: { path: string; what: string }[] = [];
    if (this.registryFile) {
      for (const suffix of ['', '-wal', '-shm', '-journal']) guarded.push({ path: await realOrResolved(this.registryFile + suffix), what: 'the control-plane registry' });
    }
    if (this.options.mvStoreDir) guarded.push({ path: await realOrResolved(this.options.mvStoreDir), what: 'the MV snapshot store' });
    // either way round: a source inside the store, or a source directory that contains the registry
    const hit = guarded.find((g) => within(real, g.path) || within(g.path, real));
    if (hit) {
      throw new ShoalError('ADMIN_PROTECTED_TARGET', `${where}: the path reaches ${hit.what}, which is never a source`, {
        where,
        hint: `give a path that neither is nor contains ${hit.what}`,
      });
    }
  }

  private async realRoots(): Promise<string[]> {
    const out: string[] = [];
    // a root that does not exist (yet) admits nothing
    for (const r of this.roots) {
      const real = await realpath(r).catch(() => undefined);
      if (real !== undefined) out.push(real);
    }
    return out;
  }
}

/** Whether `path` is `dir` or inside it (both absolute and normalised). */
function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

async function realOrResolved(path: string): Promise<string> {
  return (await realpath(path).catch(() => undefined)) ?? resolve(path);
}

function parseHostEntry(entry: string): HostEntry {
  if (!HOST_ENTRY.test(entry)) {
    throw new ShoalError('CONFIG_INVALID', `admin.allowed_hosts: "${entry}" is not host or host:port`, { where: 'admin.allowed_hosts', hint: 'write db.example.com or db.example.com:5432' });
  }
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(entry)!;
  return { host: normaliseHost(m[1]!)!, ...(m[2] === undefined ? {} : { port: Number(m[2]) }) };
}

/** Lower case, brackets off an IPv6 address; undefined for anything that is not a host (a socket path, a URL). */
function normaliseHost(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (!HOST_ENTRY.test(bare.includes(':') ? `[${bare}]` : bare)) return undefined;
  return bare.toLowerCase();
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|0:0:0:0:0:0:0:1)$/;

function sameServer(host: string, port: number, target: ServerTarget): boolean {
  const a = LOOPBACK.test(host) ? 'loopback' : host;
  const b = LOOPBACK.test(target.host) ? 'loopback' : target.host;
  return a === b && port === target.port;
}

function registryTarget(url: string | undefined, baseDir: string): { file?: string; server?: ServerTarget } | undefined {
  if (url === undefined) return undefined;
  let target;
  try {
    target = parseSqlUrl(url, baseDir);
  } catch {
    return undefined; // an unusable registry URL never opened, so there is nothing to protect
  }
  if (target.dialect === 'sqlite') return target.path === ':memory:' ? {} : { file: isAbsolute(target.path) ? target.path : resolve(baseDir, target.path) };
  try {
    const u = new URL(target.url);
    const host = normaliseHost(u.searchParams.get('host') ?? (decodeURIComponent(u.hostname) || 'localhost')) ?? 'localhost';
    const port = Number(u.searchParams.get('port') ?? (u.port || 5432));
    const path = decodeURIComponent(u.pathname.replace(/^\//, ''));
    const database = u.searchParams.get('dbname') ?? (path || decodeURIComponent(u.username) || undefined);
    return { server: { host, port, ...(database ? { database } : {}) } };
  } catch {
    return undefined;
  }
}
