import type { ErrorDetails } from '../../core/errors.js';
import { TikError } from '../errors.js';
import { BUNDLE_ENCODING, BUNDLE_ENCODING_HEADER } from './bundle-encoding.js';
import { SYNC_LIMITS } from './limits.js';
import { readCapped } from './read-capped.js';
import type { ReceiveSummary } from './receive-bundle.js';
import type { SyncTransport } from './transport.js';

/** The sync endpoints a `tik serve` replica exposes (docs/tik-sync.md). */
export const SYNC_PATHS = Object.freeze({ reconcile: '/sync/v1/reconcile', fetch: '/sync/v1/fetch', push: '/sync/v1/push' });

export interface HttpTransportOptions {
  /** Per request, from connect to the last body byte. Default `SYNC_LIMITS.requestTimeoutMs`. */
  readonly timeoutMs?: number;
  /** Sent with every request (a sharded replica sends `x-tik-shard: i/M`, see docs/tik-sync.md). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Aborts every request in flight (a stopping server, a session deadline). */
  readonly signal?: AbortSignal;
  /** Largest reconciliation answer and bundle accepted. Defaults from `SYNC_LIMITS`. */
  readonly maxReconcileBytes?: number;
  readonly maxBundleBytes?: number;
}

/**
 * `sync/push-refused`: the peer answered a push 401 (it does not accept this replica's
 * credentials) or 403 (its policy refused what was pushed). `peerCode` is the peer's own code
 * (`auth/unauthenticated`, `auth/forbidden`, `auth/unsigned`, …).
 */
export class PushRefusedError extends TikError {
  constructor(
    readonly status: 401 | 403,
    readonly peerCode: string,
    message: string,
    details: ErrorDetails,
  ) {
    super('sync/push-refused', message, details);
  }
}

/** The largest push summary (a small JSON object) read from a peer. */
const SUMMARY_BYTES = 64 * 1024;

/**
 * A transport to a `tik serve` replica at `baseUrl` (e.g. `http://127.0.0.1:7777`). Every request
 * is bounded in time (`timeoutMs`) and every answer in size, read while it streams.
 */
export function httpTransport(baseUrl: string, options: HttpTransportOptions = {}): SyncTransport {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    throw new TikError('sync/bad-url', `not a URL: ${JSON.stringify(baseUrl)}`, { where: baseUrl, hint: 'e.g. http://127.0.0.1:7777' });
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new TikError('sync/bad-url', `a peer URL must be http or https, got ${base.protocol}`, { where: baseUrl, hint: 'e.g. http://127.0.0.1:7777' });
  }
  const timeoutMs = options.timeoutMs ?? SYNC_LIMITS.requestTimeoutMs;
  const maxReconcile = options.maxReconcileBytes ?? SYNC_LIMITS.reconcileBytes;
  const maxBundle = options.maxBundleBytes ?? SYNC_LIMITS.bundleBytes;
  const failure = (url: URL, e: unknown, signal: AbortSignal): TikError => {
    if (e instanceof TikError) return e;
    if (options.signal?.aborted) return new TikError('sync/aborted', `the sync with ${url.origin} was stopped`, { where: url.href, hint: 'nothing was lost; the next sync resumes' });
    if (signal.aborted) return new TikError('sync/timeout', `${url.href} did not answer within ${timeoutMs} ms`, { where: url.href, hint: 'the peer is slow or stalling; nothing was lost, the next sync resumes' });
    const cause = (e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message;
    return new TikError('sync/unreachable', `cannot reach ${url.href}: ${cause}`, { where: url.href, hint: 'is `tik serve` running there? nothing was lost; the next sync resumes' });
  };
  const post = async (path: string, body: Uint8Array, max: number, what: string, extra: Readonly<Record<string, string>> = {}): Promise<Uint8Array> => {
    const url = new URL(path, base);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
    try {
      const res = await fetch(url, { method: 'POST', headers: { ...options.headers, ...extra, 'content-type': 'application/octet-stream' }, body, signal });
      if (!res.ok) {
        let detail = `${res.status} ${res.statusText}`;
        let peerCode: string | undefined;
        let peerHint: string | undefined;
        try {
          const j = JSON.parse(Buffer.from(await readCapped(res, SUMMARY_BYTES, url.href, 'an error answer')).toString('utf8')) as { error?: { code?: string; message?: string; hint?: string } };
          if (j.error?.message) detail = `${j.error.code ?? res.status}: ${j.error.message}`;
          if (typeof j.error?.code === 'string') peerCode = j.error.code;
          if (typeof j.error?.hint === 'string') peerHint = j.error.hint;
        } catch {
          // not JSON, or too long; keep the status line
        }
        // A push the peer's authorship policy refused is not a failing peer: the caller may go on pulling.
        if (path === SYNC_PATHS.push && (res.status === 401 || res.status === 403)) {
          throw new PushRefusedError(res.status, peerCode ?? `http/${res.status}`, `${url.href} refused the push (${detail})`, { where: url.href, hint: peerHint ?? 'see the peer’s log' });
        }
        throw new TikError('sync/peer-refused', `${url.href} refused the request (${detail})`, { where: url.href, hint: 'see the peer’s log' });
      }
      return await readCapped(res, max, url.href, what);
    } catch (e) {
      throw failure(url, e, timeout);
    }
  };
  return {
    reconcile: (m) => post(SYNC_PATHS.reconcile, m, maxReconcile, 'a reconciliation answer'),
    // a fetch answer may come gzip-compressed (fetch decodes it; the cap holds for the decoded bundle)
    fetch: (m) => post(SYNC_PATHS.fetch, m, maxBundle, 'a fetch answer', { [BUNDLE_ENCODING_HEADER]: BUNDLE_ENCODING }),
    push: async (b) => {
      const body = await post(SYNC_PATHS.push, b, SUMMARY_BYTES, 'a push summary');
      try {
        return JSON.parse(Buffer.from(body).toString('utf8')) as ReceiveSummary;
      } catch {
        throw new TikError('sync/bad-message', `${base.origin} answered a push with something other than a JSON summary`, { where: new URL(SYNC_PATHS.push, base).href, hint: 'is that a tik serve replica?' });
      }
    },
  };
}
