/**
 * What each tik error code becomes at the two edges: the HTTP status the server answers and the
 * exit code the CLI returns. The codes are the closed union in ../error-codes.ts, which
 * `TikError`'s constructor requires; this table `satisfies` a `Record` over that union, so the
 * compiler refuses a code without a row and a row without a code.
 */
import { isCodedError } from '../../core/errors.js';
import type { TikErrorCode } from '../error-codes.js';

export type { TikErrorCode } from '../error-codes.js';

/** How a code surfaces: HTTP status and CLI exit code (0 ok, 1 failure, 2 usage). */
export interface ErrorOutcome {
  readonly http: number;
  readonly exit: 1 | 2;
}

const TABLE = {
  'admission/bad-definition': { http: 422, exit: 1 },
  'admission/bad-sidecar': { http: 422, exit: 1 },
  'admission/hash-mismatch': { http: 422, exit: 1 },
  'admission/invalid-event': { http: 422, exit: 1 },
  'admission/malformed': { http: 422, exit: 1 },
  'admission/not-canonical': { http: 422, exit: 1 },
  'admission/not-utf8': { http: 422, exit: 1 },
  'admission/orphan-sidecar': { http: 422, exit: 1 },
  'admission/too-large': { http: 413, exit: 1 },
  'admission/unnamed-blob': { http: 422, exit: 1 },
  'admission/unpinned-definition': { http: 422, exit: 1 },
  'admission/unrequested': { http: 422, exit: 1 },
  'admission/wrong-ticket': { http: 422, exit: 1 },
  'auth/bad-signature': { http: 403, exit: 1 },
  'auth/bad-tokens': { http: 500, exit: 1 },
  'auth/forbidden': { http: 403, exit: 1 },
  'auth/signed-only': { http: 403, exit: 1 },
  'auth/unauthenticated': { http: 401, exit: 1 },
  'auth/unsigned': { http: 403, exit: 1 },
  'auth/writes-disabled': { http: 403, exit: 1 },
  'canonical/too-deep': { http: 422, exit: 1 },
  'canonical/unsupported-type': { http: 422, exit: 1 },
  'cli/bad-instant': { http: 400, exit: 2 },
  'cli/bad-key': { http: 400, exit: 2 },
  'cli/bad-period': { http: 400, exit: 2 },
  'cli/bad-value': { http: 400, exit: 2 },
  'cli/clock': { http: 500, exit: 1 },
  'cli/no-file': { http: 404, exit: 1 },
  'cli/unknown-process': { http: 404, exit: 1 },
  'cli/usage': { http: 400, exit: 2 },
  'duration/invalid': { http: 422, exit: 1 },
  'edn/malformed': { http: 422, exit: 1 },
  'effects/bad-prefix': { http: 422, exit: 1 },
  'effects/invalid': { http: 422, exit: 1 },
  'effects/no-file': { http: 404, exit: 1 },
  'event/hash-mismatch': { http: 422, exit: 1 },
  'event/invalid': { http: 422, exit: 1 },
  'event/malformed': { http: 422, exit: 1 },
  'event/not-found': { http: 404, exit: 1 },
  'event/parents': { http: 422, exit: 1 },
  'event/unwritable': { http: 422, exit: 1 },
  'event/wrong-ticket': { http: 422, exit: 1 },
  'feature/bad-value': { http: 422, exit: 1 },
  'feature/malformed': { http: 422, exit: 1 },
  'feature/no-ticket': { http: 422, exit: 1 },
  'feature/unknown-process': { http: 404, exit: 1 },
  'feature/unknown-step': { http: 404, exit: 1 },
  'guard/unknown-operator': { http: 404, exit: 1 },
  'import/bad-archive': { http: 422, exit: 1 },
  'import/bad-tree': { http: 422, exit: 1 },
  'import/link': { http: 422, exit: 1 },
  'import/not-a-tree': { http: 422, exit: 1 },
  'import/special-file': { http: 422, exit: 1 },
  'import/too-large': { http: 413, exit: 1 },
  'input/invalid': { http: 400, exit: 2 },
  'input/too-large': { http: 413, exit: 1 },
  'key/unreadable': { http: 422, exit: 1 },
  'key/unusable': { http: 422, exit: 1 },
  'process/bad-name': { http: 422, exit: 1 },
  'process/bad-pin': { http: 422, exit: 1 },
  'process/by-hash-mismatch': { http: 422, exit: 1 },
  'process/hash-mismatch': { http: 422, exit: 1 },
  'process/invalid': { http: 422, exit: 1 },
  'process/lint': { http: 422, exit: 1 },
  'process/not-archived': { http: 422, exit: 1 },
  'process/pin-mismatch': { http: 422, exit: 1 },
  'process/unpinned': { http: 422, exit: 1 },
  'process/unreadable': { http: 422, exit: 1 },
  'process/unresolved': { http: 422, exit: 1 },
  'recur/bad-cadence': { http: 422, exit: 1 },
  'recur/bad-config': { http: 422, exit: 1 },
  'recur/bad-instant': { http: 422, exit: 1 },
  'remote/failed': { http: 503, exit: 1 },
  'root/anchor-unsupported': { http: 501, exit: 1 },
  'roles/malformed': { http: 422, exit: 1 },
  'schema/invalid': { http: 422, exit: 1 },
  'server/bad-host': { http: 421, exit: 1 },
  'server/bad-option': { http: 400, exit: 2 },
  'server/bad-request': { http: 400, exit: 1 },
  'server/internal': { http: 500, exit: 1 },
  'server/not-found': { http: 404, exit: 1 },
  'server/unknown-verb': { http: 404, exit: 1 },
  'select/bad-term': { http: 400, exit: 2 },
  'shard/bad-spec': { http: 422, exit: 1 },
  'shard/failed': { http: 500, exit: 1 },
  'shard/misdirected': { http: 421, exit: 1 },
  'shard/mismatch': { http: 409, exit: 1 },
  'shard/no-id': { http: 422, exit: 1 },
  'shard/unavailable': { http: 503, exit: 1 },
  'sign/not-own-event': { http: 422, exit: 1 },
  'store/ambiguous-layout': { http: 409, exit: 1 },
  'store/bad-actor-name': { http: 422, exit: 1 },
  'store/bad-actors': { http: 422, exit: 1 },
  'store/bad-bytes': { http: 422, exit: 1 },
  'store/bad-definition': { http: 422, exit: 1 },
  'store/bad-id': { http: 422, exit: 1 },
  'store/bad-pack': { http: 422, exit: 1 },
  'store/bad-process-name': { http: 422, exit: 1 },
  'store/bad-process-signature': { http: 422, exit: 1 },
  'store/bad-public-key': { http: 422, exit: 1 },
  'store/bad-roles': { http: 422, exit: 1 },
  'store/bad-root-witness': { http: 422, exit: 1 },
  'store/bad-sidecar-name': { http: 422, exit: 1 },
  'store/bad-ticket': { http: 422, exit: 1 },
  'store/bad-url': { http: 422, exit: 1 },
  'store/by-hash-mismatch': { http: 422, exit: 1 },
  'store/by-hash-not-canonical': { http: 422, exit: 1 },
  'store/exists': { http: 409, exit: 1 },
  'store/export-onto-itself': { http: 422, exit: 1 },
  'store/fingerprint-mismatch': { http: 422, exit: 1 },
  'store/hash-mismatch': { http: 422, exit: 1 },
  'store/bad-journal': { http: 500, exit: 1 },
  'store/import-onto-itself': { http: 422, exit: 1 },
  'store/io': { http: 500, exit: 1 },
  'store/malformed-signature': { http: 422, exit: 1 },
  'store/migrate-mismatch': { http: 422, exit: 1 },
  'store/not-canonical': { http: 422, exit: 1 },
  'store/not-file': { http: 422, exit: 1 },
  'store/not-found': { http: 404, exit: 1 },
  'store/stale-root-witness': { http: 422, exit: 1 },
  'store/ticket-mismatch': { http: 422, exit: 1 },
  'store/unavailable': { http: 503, exit: 1 },
  'store/unsupported': { http: 422, exit: 1 },
  'sync/aborted': { http: 503, exit: 1 },
  'sync/bad-bundle': { http: 400, exit: 1 },
  'sync/bad-id': { http: 400, exit: 1 },
  'sync/bad-message': { http: 400, exit: 1 },
  'sync/bad-ticket': { http: 400, exit: 1 },
  'sync/bad-url': { http: 400, exit: 1 },
  'sync/busy': { http: 503, exit: 1 },
  'sync/length-required': { http: 411, exit: 1 },
  'sync/options': { http: 400, exit: 1 },
  'sync/peer-limit': { http: 502, exit: 1 },
  'sync/peer-refused': { http: 422, exit: 1 },
  'sync/push-busy': { http: 503, exit: 1 },
  'sync/push-refused': { http: 422, exit: 1 },
  'sync/rate-limited': { http: 429, exit: 1 },
  'sync/refused': { http: 400, exit: 1 },
  'sync/timeout': { http: 504, exit: 1 },
  'sync/too-large': { http: 413, exit: 1 },
  'sync/truncated': { http: 400, exit: 1 },
  'sync/unreachable': { http: 503, exit: 1 },
  'sync/varint': { http: 400, exit: 1 },
  'sync/version': { http: 400, exit: 1 },
  'test/malformed': { http: 422, exit: 1 },
  'test/no-process': { http: 422, exit: 1 },
  'ticket/ambiguous': { http: 409, exit: 1 },
  'ticket/bad-prefix': { http: 400, exit: 1 },
  'ticket/empty': { http: 422, exit: 1 },
  'ticket/missing-parents': { http: 422, exit: 1 },
  'ticket/unknown': { http: 404, exit: 1 },
  'ticket/unreadable': { http: 422, exit: 1 },
} as const satisfies Record<TikErrorCode, ErrorOutcome>;

/** The one table: code → HTTP status and exit code. */
export const ERROR_TABLE: Readonly<Record<TikErrorCode, ErrorOutcome>> = Object.freeze(TABLE);

/** Whether `code` is one of the closed union. */
export function isTikErrorCode(code: string): code is TikErrorCode {
  return Object.hasOwn(ERROR_TABLE, code);
}

/** The outcome of any code; one outside the union (a bug, caught by the table test) is a 500 / exit 1. */
export function outcomeOf(code: string): ErrorOutcome {
  return isTikErrorCode(code) ? ERROR_TABLE[code] : { http: 500, exit: 1 };
}

/** The outcome of anything thrown: a coded error by its code, anything else an internal error. */
export function outcomeOfError(e: unknown): ErrorOutcome {
  return isCodedError(e) ? outcomeOf(e.code) : { http: 500, exit: 1 };
}
