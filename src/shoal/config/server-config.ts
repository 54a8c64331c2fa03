/**
 * The `server:` key: how an instance faces the network. Upstream provisa's `server` has
 * `hostname` (and ports, and `limits`); shoal adds the transport policy: TLS certificate files,
 * the Host allow-list and CORS. All of it is per instance and read once at start.
 */
import { z } from 'zod';
import type { KeyCatalog } from './config-schema.js';
import { LIMITS_KEYS, limitsSchema } from './limits.js';

const name = z.string().min(1);
const optional = <T extends z.ZodType>(t: T) => t.nullish().transform((v) => v ?? undefined);
const bool = z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());
const int = z.preprocess((v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v), z.number().int());

/** A Host allow-list entry: a hostname or IP, `*.domain` for its subdomains, or `*` for any. */
const HOST_ENTRY = /^(\*|(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*|\d{1,3}(\.\d{1,3}){3}|\[?[0-9a-f:.]+\]?)$/i;

/** A CORS origin exactly as a browser sends it: scheme, host and optional port, no path. */
const ORIGIN = /^https?:\/\/[^/\s?#]+$/i;

export const tlsSchema = z.object({
  cert_file: name,
  key_file: name,
});

export const corsSchema = z.object({
  origins: z.array(z.union([z.literal('*'), z.string().regex(ORIGIN, { message: 'expected an origin such as https://app.example.com (scheme and host, no path)' })])).min(1),
  methods: optional(z.array(z.string().regex(/^[A-Za-z]+$/, { message: 'expected an HTTP method name' }))),
  headers: optional(z.array(name)),
  expose_headers: optional(z.array(name)),
  credentials: optional(bool),
  max_age: optional(int.pipe(z.number().int().min(0))),
}).superRefine((c, ctx) => {
  // browsers refuse a credentialed answer to a wildcard origin: say so at load, not in a browser console
  if (c.credentials === true && c.origins.includes('*')) {
    ctx.addIssue({ code: 'custom', path: ['origins'], message: 'origin "*" cannot be combined with credentials: true; list the origins' });
  }
});

export const serverSchema = z.object({
  hostname: optional(z.string().regex(HOST_ENTRY, { message: 'expected a host name or IP address' })),
  allowed_hosts: optional(z.array(z.string().regex(HOST_ENTRY, { message: 'expected a host name, *.domain, an IP address or *' })).min(1)),
  tls: optional(tlsSchema),
  cors: optional(corsSchema),
  limits: optional(limitsSchema),
});

export const SERVER_KEYS: KeyCatalog = {
  kind: 'server',
  known: Object.keys(serverSchema.shape),
  unsupported: ['port', 'grpc_port', 'flight_port'],
  children: {
    limits: LIMITS_KEYS,
    tls: { kind: 'server.tls', known: Object.keys(tlsSchema.shape), unsupported: [] },
    cors: { kind: 'server.cors', known: Object.keys(corsSchema.shape), unsupported: [] },
  },
};

/** `server.tls`: PEM files read when `shoal serve` starts (relative paths: relative to the config file). */
export interface TlsConfig {
  readonly cert_file: string;
  readonly key_file: string;
}

/** `server.cors`: absent means no cross-origin access at all (no Access-Control-* header is ever sent). */
export interface CorsConfig {
  readonly origins: readonly string[];
  readonly methods: readonly string[];
  readonly headers: readonly string[];
  readonly expose_headers: readonly string[];
  readonly credentials: boolean;
  /** Seconds a browser may cache a preflight answer. */
  readonly max_age: number;
}

export interface ServerConfig {
  /** The name clients reach this instance by (upstream's key); it is on the default Host allow-list. */
  readonly hostname?: string;
  /** Host header values accepted; absent = loopback names plus `hostname` (see host-allow-list.ts). */
  readonly allowed_hosts?: readonly string[];
  readonly tls?: TlsConfig;
  readonly cors?: CorsConfig;
}

export const DEFAULT_CORS: Omit<CorsConfig, 'origins'> = {
  methods: ['GET', 'POST', 'DELETE'],
  headers: ['accept', 'authorization', 'content-type', 'x-provisa-role'],
  expose_headers: ['x-shoal-route', 'x-shoal-mv', 'x-shoal-hot', 'x-shoal-hot-age', 'x-provisa-cache', 'x-provisa-cache-age', 'x-shoal-cache-reason'],
  credentials: false,
  max_age: 600,
};

/** The normalised `server:` settings (defaults applied, names lower-cased). */
export function normaliseServer(raw: z.output<typeof serverSchema> | undefined): ServerConfig {
  const out: { -readonly [K in keyof ServerConfig]: ServerConfig[K] } = {};
  if (!raw) return out;
  if (raw.hostname) out.hostname = raw.hostname.toLowerCase();
  if (raw.allowed_hosts) out.allowed_hosts = raw.allowed_hosts.map((h) => h.toLowerCase());
  if (raw.tls) out.tls = { cert_file: raw.tls.cert_file, key_file: raw.tls.key_file };
  if (raw.cors) {
    const c = raw.cors;
    out.cors = {
      origins: c.origins.map((o) => o.toLowerCase()),
      methods: (c.methods ?? DEFAULT_CORS.methods).map((m) => m.toUpperCase()),
      headers: (c.headers ?? DEFAULT_CORS.headers).map((h) => h.toLowerCase()),
      expose_headers: (c.expose_headers ?? DEFAULT_CORS.expose_headers).map((h) => h.toLowerCase()),
      credentials: c.credentials ?? DEFAULT_CORS.credentials,
      max_age: c.max_age ?? DEFAULT_CORS.max_age,
    };
  }
  return out;
}
