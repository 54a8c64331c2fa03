/**
 * Which Host header values an instance answers (a defence against DNS rebinding: a browser page on
 * an attacker's name that resolves to the instance still sends the attacker's name as Host).
 *
 * Entries are host names or IP addresses (ports are ignored), `*.example.com` for any subdomain,
 * or `*` for any host. With `server.allowed_hosts` unset the list is the loopback names
 * (`localhost`, `127.0.0.1`, `::1`), `server.hostname` when set, and the address `serve` binds
 * when that is a specific one (not `0.0.0.0` or `::`).
 */
import type { ServerConfig } from '../config/server-config.js';

export interface HostAllowList {
  /** The entries, as configured or defaulted, lower-cased. */
  readonly entries: readonly string[];
  /** True when a request carrying this Host header may be served. */
  allows(hostHeader: string | undefined): boolean;
}

const LOOPBACK = ['localhost', '127.0.0.1', '::1'] as const;
const WILDCARD_BINDS = new Set(['0.0.0.0', '::', '[::]', '']);

/** The allow-list of a `server:` config and the address bound. */
export function hostAllowList(server: ServerConfig, bindHost?: string): HostAllowList {
  const defaults = (): string[] => {
    const out: string[] = [...LOOPBACK];
    if (server.hostname) out.push(server.hostname);
    if (bindHost !== undefined && !WILDCARD_BINDS.has(bindHost)) out.push(bindHost.toLowerCase());
    return out;
  };
  const entries = Object.freeze([...new Set((server.allowed_hosts ?? defaults()).map(bare))]);
  return {
    entries,
    allows(hostHeader) {
      const host = hostHeader === undefined ? undefined : hostOf(hostHeader);
      if (host === undefined) return false;
      return entries.some((e) => e === '*' || e === host || (e.startsWith('*.') && host.endsWith(e.slice(1)) && host.length > e.length - 1));
    },
  };
}

/** An entry without IPv6 brackets, so `[::1]` and `::1` are one entry. */
function bare(entry: string): string {
  return entry.startsWith('[') && entry.endsWith(']') ? entry.slice(1, -1) : entry;
}

/** The host part of a Host header (lower-case, no port, no trailing dot), or undefined when malformed. */
export function hostOf(header: string): string | undefined {
  const h = header.trim().toLowerCase();
  if (h === '' || h.length > 255) return undefined;
  let host: string;
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end < 0) return undefined;
    const rest = h.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return undefined;
    host = h.slice(1, end);
  } else {
    const m = /^([^:]+)(:\d{1,5})?$/.exec(h);
    if (!m) return undefined;
    host = m[1]!;
  }
  if (host.endsWith('.')) host = host.slice(0, -1);
  return /^[a-z0-9.:-]+$/.test(host) ? host : undefined;
}
