import { readCapped } from '../sync/read-capped.js';
import type { EffectiveRegister } from './effective-register.js';

/** How a replica's roles register compares with a peer's (`/health` `roles.digest`). */
export interface RolesComparison {
  readonly url: string;
  /** The peer's digest: null when it has no register, undefined when it could not be read. */
  readonly peer: string | null | undefined;
  readonly local: string | null;
  /** `same`, `differs`, or `unknown` (the peer did not say). */
  readonly verdict: 'same' | 'differs' | 'unknown';
}

/** The roles digest a replica announces on `/health`, read with a bounded time and size. */
export async function peerRolesDigest(url: string, options: { timeoutMs?: number; headers?: Readonly<Record<string, string>>; signal?: AbortSignal } = {}): Promise<string | null | undefined> {
  try {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000);
    const res = await fetch(new URL('/health', url), { headers: { ...options.headers }, signal: options.signal ? AbortSignal.any([timeout, options.signal]) : timeout });
    if (!res.ok) return undefined;
    const body = JSON.parse(Buffer.from(await readCapped(res, 1 << 20, url, 'a /health answer')).toString('utf8')) as { roles?: { digest?: unknown } };
    const d = body.roles?.digest;
    return d === null ? null : typeof d === 'string' && /^sha256-[0-9a-f]{64}$/.test(d) ? d : undefined;
  } catch {
    return undefined;
  }
}

export function compareRoles(url: string, local: EffectiveRegister, peer: string | null | undefined): RolesComparison {
  const mine = local.digest ?? null;
  return { url, peer, local: mine, verdict: peer === undefined ? 'unknown' : peer === mine ? 'same' : 'differs' };
}

/** One line for a terminal when the registers differ, else undefined. */
export function rolesDifferLine(c: RolesComparison): string | undefined {
  if (c.verdict !== 'differs') return undefined;
  return `roles differ from ${c.url}: this replica derives with ${c.local ?? 'no register'}, the peer with ${c.peer ?? 'no register'} — the same events can derive different stages (publish one register with tik roles publish; docs/tik-sync.md)`;
}
