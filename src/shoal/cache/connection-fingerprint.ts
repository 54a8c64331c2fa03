/**
 * A source's connection fingerprint: a digest of the settings that decide which data it reaches
 * (type, host, effective port, database, user, file path, attach), as resolved in the catalog
 * (the config's `${env:…}` already interpolated, paths absolute). A password is never in it, not
 * even hashed (a low-entropy secret's hash is a guessable secret): only the name of the variable
 * it is read from. Cache keys carry it, so a source pointed elsewhere never serves old entries.
 */
import { sha256Hex } from '../../core/hash.js';
import type { CatalogModel, SourceConfig } from '../config/model.js';
import { secretVariable } from '../config/secret.js';
import { canonicalJson } from '../../core/canonical-json.js';

const DEFAULT_PORTS: Readonly<Record<string, number>> = { postgresql: 5432, mysql: 3306, mariadb: 3306 };

/** The fingerprint of one source (64 hex digits). */
export function connectionFingerprint(s: SourceConfig): string {
  return sha256Hex(
    canonicalJson({
      v: 1,
      type: s.type,
      host: s.host?.toLowerCase() ?? null,
      port: s.port !== undefined && s.port !== 0 ? s.port : (DEFAULT_PORTS[s.type] ?? null),
      database: s.database ?? null,
      username: s.username ?? null,
      password_variable: s.password === undefined ? null : (secretVariable(s.password) ?? '(literal)'),
      path: s.path ?? null,
      base_url: s.base_url ?? null,
      attach: s.attach === true,
    }),
  );
}

const byModel = new WeakMap<CatalogModel, string>();

/** One digest of every source's fingerprint (sorted by source id), memoised per catalog value. */
export function catalogConnectionsFingerprint(model: CatalogModel): string {
  const known = byModel.get(model);
  if (known !== undefined) return known;
  const digest = sha256Hex(canonicalJson([...model.sources].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((s) => [s.id, connectionFingerprint(s)])));
  byModel.set(model, digest);
  return digest;
}
