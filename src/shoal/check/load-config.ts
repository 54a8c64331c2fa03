/**
 * Load a shoal config file: YAML (with line numbers kept) → env interpolation → unknown/unsupported
 * key check → zod validation → normalisation into the immutable model → cross-reference checks.
 *
 * Every error names the key path and the line: `tables[2].columns[0].mask_type: expected
 * regex|constant|truncate (line 41)`. Source passwords must be `${env:VAR}` references; they stay
 * unresolved in the model (resolved at connect time, ./secret.ts) and a literal password is an error,
 * because the control-plane registry never stores a secret in plain text.
 */
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { parseSqlUrl } from '../../core/sql/sql-url.js';
import { ShoalError } from '../errors.js';
import { checkAuth } from '../config/auth-checks.js';
import { checkCatalog, resolveTableReferences } from './catalog-checks.js';
import { child, formatIssue, item, pathOf, type ConfigIssue } from '../config/config-issue.js';
import { normaliseAudit } from '../config/audit-config.js';
import { normaliseServer } from '../config/server-config.js';
import { CONFIG_KEYS, configSchema, type KeyCatalog, type RawConfig } from '../config/config-schema.js';
import { didYouMean } from '../config/did-you-mean.js';
import type { Env } from '../config/env-interpolation.js';
import {
  DEFAULT_STATEFUL,
  deepFreeze,
  dropUndefined,
  makeColumn,
  makeDomain,
  makeRelationship,
  makeRole,
  makeSource,
  makeTable,
  type CatalogModel,
  type ShoalConfig,
  type StatefulConfig,
} from '../config/model.js';
import { normaliseLimits } from '../config/limits.js';
import { isSecretReference } from '../config/secret.js';
import { readYamlTree, type Position } from '../config/yaml-tree.js';

/** A path to a YAML file, or YAML text (`name` labels it in messages). A bare string is a path unless it contains a newline. */
export type ConfigSource = string | { readonly path: string } | { readonly text: string; readonly name?: string };

export interface ConfigCheckResult {
  readonly ok: boolean;
  readonly errors: readonly ConfigIssue[];
  readonly warnings: readonly ConfigIssue[];
  /** Present when ok. */
  readonly config?: ShoalConfig;
}

export interface LoadedConfig {
  readonly config: ShoalConfig;
  readonly warnings: readonly ConfigIssue[];
}

const SECRET_PATH = /^sources\[\d+\]\.password$/;

/** Source types upstream provisa has and shoal doesn't: reported as unsupported rather than as a typo. */
const UPSTREAM_ONLY_SOURCE_TYPES: readonly string[] = [
  'openapi', 'graphql', 'grpc', 'mongodb', 'elasticsearch', 'kafka', 'delta', 'iceberg', 'duckdb', 'snowflake',
  'bigquery', 'redshift', 'oracle', 'sqlserver', 'mssql', 'clickhouse', 'trino', 'hive', 'cassandra', 'redis', 'excel',
];

/** Validate a config and report every error and warning; never throws for bad input. `shoal config check` calls this. */
export function checkConfig(source: ConfigSource, env: Env = process.env): ConfigCheckResult {
  const read = readSource(source);
  if ('error' in read) return { ok: false, errors: [read.error], warnings: [] };
  return checkConfigText(read.text, env);
}

/** Load a config or throw ShoalError CONFIG_INVALID listing every error (key path and line each). */
export function loadConfig(source: ConfigSource, env: Env = process.env): LoadedConfig {
  const where = typeof source === 'string' ? (source.includes('\n') ? 'config' : source) : 'path' in source ? source.path : (source.name ?? 'config');
  const result = checkConfig(source, env);
  if (!result.ok || !result.config) {
    const first = result.errors[0];
    const lines = result.errors.map((e) => `  ${formatIssue(e)}${e.hint ? ` — ${e.hint}` : ''}`);
    throw new ShoalError('CONFIG_INVALID', `${result.errors.length} error(s) in ${where}:\n${lines.join('\n')}`, {
      where,
      ...(first?.line === undefined ? {} : { position: { line: first.line, column: first.column ?? 1 } }),
      hint: first?.hint ?? 'fix the listed keys; `shoal config check --config FILE` lists every problem',
    });
  }
  return { config: result.config, warnings: result.warnings };
}

/** The whole pipeline over YAML text. */
export function checkConfigText(text: string, env: Env = process.env): ConfigCheckResult {
  const tree = readYamlTree(text, { env, isSecretPath: (p) => SECRET_PATH.test(p) });
  const positions = tree.positions;
  const locate = (issue: ConfigIssue): ConfigIssue => {
    if (issue.line !== undefined) return issue;
    const pos = nearestPosition(positions, issue.path);
    return pos ? { ...issue, line: pos.line, column: pos.column } : issue;
  };
  const errors: ConfigIssue[] = [...tree.issues];
  const warnings: ConfigIssue[] = [];
  if (tree.value === undefined) return finish(errors, warnings, undefined, locate);

  const root = tree.value ?? {};
  if (!isPlainObject(root)) {
    errors.push({ code: 'CONFIG_TYPE', path: '', message: 'the config must be a YAML mapping of keys (sources:, tables:, …)', line: 1, column: 1 });
    return finish(errors, warnings, undefined, locate);
  }
  checkKeys(root, CONFIG_KEYS, '', errors, warnings);

  // a value whose env reference failed is already reported (and left out): report nothing else about it
  const reported = new Set(tree.issues.map((i) => i.path));
  const parsed = configSchema.safeParse(root);
  if (!parsed.success) {
    errors.push(...parsed.error.issues.map((i) => zodIssue(i, root)).filter((i) => !reported.has(i.path)));
    return finish(errors, warnings, undefined, locate);
  }
  // keep going after key and env errors: the cross-reference checks below still find real problems

  const raw = parsed.data;
  (raw.sources ?? []).forEach((s, i) => {
    if (s.password !== undefined && !isSecretReference(s.password)) {
      errors.push({
        code: 'CONFIG_PLAINTEXT_SECRET',
        path: child(item('sources', i), 'password'),
        message: 'a password must be an ${env:VAR} reference (with no default), never a literal: the registry stores secrets only as references',
        hint: 'write password: ${env:SOME_VAR} and set SOME_VAR where shoal runs',
      });
    }
  });
  for (const key of ['tenant_url', 'platform_url'] as const) {
    const url = raw.control_plane?.[key];
    if (url === undefined) continue;
    try {
      parseSqlUrl(url);
    } catch (e) {
      errors.push({
        code: 'CONFIG_URL',
        path: child('control_plane', key),
        message: (e as Error).message,
        hint: 'use sqlite:///relative.db, sqlite:////absolute/path.db or postgresql://user@host/db',
      });
    }
  }
  const catalog = normaliseCatalog(raw);
  const resolved = resolveTableReferences(catalog);
  const checked = checkCatalog(resolved.catalog);
  const auth = checkAuth(raw.auth, catalog.roles.map((r) => r.id));
  errors.push(...[...resolved.errors, ...checked.errors, ...auth.errors].filter((i) => !reported.has(i.path)));
  warnings.push(...checked.warnings, ...auth.warnings);
  const config: ShoalConfig = deepFreeze({
    ...resolved.catalog,
    stateful: normaliseStateful(raw),
    auth: auth.auth,
    limits: normaliseLimits(raw.server?.limits),
    ...(raw.admin === undefined ? {} : { admin: { file_roots: raw.admin.file_roots ?? [], allowed_hosts: raw.admin.allowed_hosts ?? [] } }),
  });
  return finish(errors, warnings, config, locate);
}

function finish(
  errors: ConfigIssue[],
  warnings: ConfigIssue[],
  config: ShoalConfig | undefined,
  locate: (i: ConfigIssue) => ConfigIssue,
): ConfigCheckResult {
  const unique = (list: ConfigIssue[]) => {
    const seen = new Set<string>();
    return list.filter((i) => {
      const k = `${i.path}\u0000${i.message}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  };
  const errs = unique(errors).map(locate);
  const warns = unique(warnings).map(locate);
  const ok = errs.length === 0 && config !== undefined;
  return deepFreeze({ ok, errors: errs, warnings: warns, ...(ok ? { config } : {}) });
}

function readSource(source: ConfigSource): { text: string } | { error: ConfigIssue } {
  if (typeof source === 'string' && source.includes('\n')) return { text: source };
  if (typeof source === 'object' && 'text' in source) return { text: source.text };
  const path = typeof source === 'string' ? source : source.path;
  try {
    return { text: readFileSync(path, 'utf8') };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return {
      error: {
        code: 'CONFIG_FILE',
        path: '',
        message: code === 'ENOENT' ? `config file ${path} does not exist` : `cannot read config file ${path} (${code ?? 'error'})`,
        hint: 'pass --config with the path of a readable YAML file',
      },
    };
  }
}

function checkKeys(value: Record<string, unknown>, catalog: KeyCatalog, path: string, errors: ConfigIssue[], warnings: ConfigIssue[]): void {
  for (const [key, v] of Object.entries(value)) {
    const p = child(path, key);
    if (catalog.known.includes(key)) {
      const sub = catalog.children?.[key];
      if (!sub) continue;
      if (Array.isArray(v)) v.forEach((x, i) => isPlainObject(x) && checkKeys(x, sub, item(p, i), errors, warnings));
      else if (isPlainObject(v)) checkKeys(v, sub, p, errors, warnings);
    } else if (catalog.unsupported.includes(key)) {
      warnings.push({
        code: 'CONFIG_UNSUPPORTED_KEY',
        path: p,
        message: `"${key}" is an upstream provisa ${catalog.kind} key that shoal does not support; it is ignored`,
        hint: 'remove it, or keep it for upstream compatibility knowing shoal ignores it',
      });
    } else {
      const suggestion = didYouMean(key, [...catalog.known, ...catalog.unsupported]);
      errors.push({
        code: 'CONFIG_UNKNOWN_KEY',
        path: p,
        message: `unknown ${catalog.kind} key "${key}"`,
        hint: suggestion ? `did you mean "${suggestion}"?` : `known keys: ${catalog.known.join(', ')}`,
      });
    }
  }
}

function zodIssue(issue: z.core.$ZodIssue, root: unknown): ConfigIssue {
  const path = pathOf(issue.path);
  const present = valueAt(root, issue.path) !== undefined;
  let message: string;
  if (!present) {
    const expected = issue.code === 'invalid_value' ? issue.values.map(String).join('|') : issue.code === 'invalid_type' ? issue.expected : undefined;
    return { code: 'CONFIG_MISSING_FIELD', path, message: expected ? `is required (${expected})` : 'is required' };
  }
  switch (issue.code) {
    case 'invalid_value': {
      const given = valueAt(root, issue.path);
      const options = issue.values.map(String);
      if (/^sources\[\d+\]\.type$/.test(path) && typeof given === 'string' && UPSTREAM_ONLY_SOURCE_TYPES.includes(given)) {
        return {
          code: 'CONFIG_UNSUPPORTED_SOURCE_TYPE',
          path,
          message: `source type "${given}" exists in upstream provisa but shoal does not support it; expected ${options.join('|')}`,
          hint: 'land the data into a supported source (for example PostgreSQL or Parquet files) and register that',
        };
      }
      const suggestion = typeof given === 'string' ? didYouMean(given, options) : undefined;
      return {
        code: 'CONFIG_TYPE',
        path,
        message: `expected ${options.join('|')}`,
        ...(suggestion ? { hint: `did you mean "${suggestion}"?` } : {}),
      };
    }
    case 'invalid_type':
      message = `expected ${issue.expected}, got ${describe(valueAt(root, issue.path))}`;
      break;
    case 'too_small':
      message = issue.origin === 'string' ? 'must not be empty' : `must be at least ${String(issue.minimum)}`;
      break;
    default:
      message = issue.message;
  }
  return { code: 'CONFIG_TYPE', path, message };
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return `${typeof v} ${JSON.stringify(v)}`;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[seg];
  }
  return v;
}

function nearestPosition(positions: ReadonlyMap<string, Position>, path: string): Position | undefined {
  let p = path;
  while (p !== '') {
    const pos = positions.get(p);
    if (pos) return pos;
    const cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
    p = cut <= 0 ? '' : p.slice(0, cut);
  }
  return undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function normaliseCatalog(raw: RawConfig): CatalogModel {
  return deepFreeze({
    sources: (raw.sources ?? []).map((s) => makeSource(s)),
    domains: (raw.domains ?? []).map((d) => makeDomain(d)),
    tables: (raw.tables ?? []).map((t) => makeTable({ ...t, columns: (t.columns ?? []).map((c) => makeColumn(c)) })),
    relationships: (raw.relationships ?? []).map((r) => makeRelationship(r)),
    roles: (raw.roles ?? []).map((r) => makeRole(r)),
    // not makeRlsRule: its exactly-one-of guard would throw; checkCatalog reports that with a key path and line
    rls_rules: (raw.rls_rules ?? []).map((r) => deepFreeze(dropUndefined(r))),
  });
}

function normaliseStateful(raw: RawConfig): StatefulConfig {
  const d = DEFAULT_STATEFUL;
  return deepFreeze(
    dropUndefined({
      control_plane: dropUndefined({
        ...d.control_plane,
        ...dropUndefined(raw.control_plane ?? {}),
      }),
      materialize_store_url: raw.materialize_store_url,
      cache: dropUndefined({ ...d.cache, ...dropUndefined(raw.cache ?? {}) }),
      hot_tables: { ...d.hot_tables, ...dropUndefined(raw.hot_tables ?? {}) },
      federation_engine: raw.federation_engine ?? d.federation_engine,
      federation_engine_url: raw.federation_engine_url,
      federation_engine_scratch_dir: raw.federation_engine_scratch_dir,
      server: normaliseServer(raw.server),
      audit: normaliseAudit(raw.audit),
    }),
  ) as StatefulConfig;
}
