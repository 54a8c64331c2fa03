import { PushRefusedError } from './http-transport.js';
import type { ReceiveSummary } from './receive-bundle.js';
import type { SyncTransport } from './transport.js';

/** What a peer's authorship policy refused of one session's pushes. */
export interface PushRefusal {
  /** The peer's code for the first refusal (`auth/unauthenticated`, `auth/forbidden`, `auth/unsigned`, …). */
  readonly code: string;
  readonly message: string;
  /** 401: the peer does not accept our credentials; 403: its policy refused what was pushed. */
  readonly status: 401 | 403;
  /** Push requests refused. */
  readonly refused: number;
  /** True after a 401: the rest of the session's pushes were not sent (pull-only). */
  readonly stopped: boolean;
}

const NOTHING: ReceiveSummary = Object.freeze({ stored: 0, present: 0, sidecars: 0, blobs: 0, processes: 0 });

/**
 * `transport` with pushes a peer refuses (`PushRefusedError`: 401 or 403) counted instead of
 * failing the session, so the pull half of a sync stands and is reported: after a 401 (no
 * credential the peer accepts) the session's remaining pushes are skipped; after a 403 (the peer
 * judged one push's events and refused them all, e.g. unsigned under `--admit signed`) the next
 * pushes are still sent, since another batch may be admitted. `refusal()` says what happened.
 */
export function toleratePushRefusal(transport: SyncTransport): { readonly transport: SyncTransport; refusal(): PushRefusal | undefined } {
  let first: PushRefusedError | undefined;
  let refused = 0;
  let stopped = false;
  return {
    transport: {
      reconcile: (m) => transport.reconcile(m),
      fetch: (m) => transport.fetch(m),
      push: async (b) => {
        if (stopped) return NOTHING;
        try {
          return await transport.push(b);
        } catch (e) {
          if (!(e instanceof PushRefusedError)) throw e;
          first ??= e;
          refused++;
          if (e.status === 401) stopped = true;
          return NOTHING;
        }
      },
    },
    refusal: () => (first ? { code: first.peerCode, message: first.message, status: first.status, refused, stopped } : undefined),
  };
}
