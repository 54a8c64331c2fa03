import { TikError } from '../errors.js';
import type { ReceiveSummary } from './receive-bundle.js';
import type { SyncTransport } from './transport.js';

/** The sync endpoints a `tik serve` replica exposes (docs/tik-sync.md). */
export const SYNC_PATHS = Object.freeze({ reconcile: '/sync/v1/reconcile', fetch: '/sync/v1/fetch', push: '/sync/v1/push' });

/**
 * A transport to a `tik serve` replica at `baseUrl` (e.g. `http://127.0.0.1:7777`). `headers` go
 * with every request (a sharded replica sends `x-tik-shard: i/M`, see docs/tik-sync.md).
 */
export function httpTransport(baseUrl: string, options: { timeoutMs?: number; headers?: Readonly<Record<string, string>> } = {}): SyncTransport {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    throw new TikError('sync/bad-url', `not a URL: ${JSON.stringify(baseUrl)}`, { where: baseUrl, hint: 'e.g. http://127.0.0.1:7777' });
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new TikError('sync/bad-url', `a peer URL must be http or https, got ${base.protocol}`, { where: baseUrl, hint: 'e.g. http://127.0.0.1:7777' });
  }
  const timeoutMs = options.timeoutMs ?? 120_000;
  const post = async (path: string, body: Uint8Array): Promise<Response> => {
    const url = new URL(path, base);
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { ...options.headers, 'content-type': 'application/octet-stream' },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      throw new TikError('sync/unreachable', `cannot reach ${url.href}: ${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message}`, {
        where: url.href,
        hint: 'is `tik serve` running there? nothing was lost; the next sync resumes',
      });
    }
    if (!res.ok) {
      let detail = `${res.status} ${res.statusText}`;
      try {
        const j = (await res.json()) as { error?: { code?: string; message?: string } };
        if (j.error?.message) detail = `${j.error.code ?? res.status}: ${j.error.message}`;
      } catch {
        // not JSON; keep the status line
      }
      throw new TikError('sync/peer-refused', `${url.href} refused the request (${detail})`, { where: url.href, hint: 'see the peer’s log' });
    }
    return res;
  };
  const bytes = async (res: Response): Promise<Uint8Array> => new Uint8Array(await res.arrayBuffer());
  return {
    reconcile: async (m) => bytes(await post(SYNC_PATHS.reconcile, m)),
    fetch: async (m) => bytes(await post(SYNC_PATHS.fetch, m)),
    push: async (b) => (await (await post(SYNC_PATHS.push, b)).json()) as ReceiveSummary,
  };
}
