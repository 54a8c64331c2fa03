import { isCodedError } from '../../core/errors.js';
import { outcomeOf } from '../app/error-table.js';

/** An error answer: `{error: {code, message, hint?}}` and its HTTP status (error-table.ts). */
export interface ErrorReply {
  readonly status: number;
  readonly body: { readonly error: { readonly code: string; readonly message: string; readonly hint?: string } };
}

/**
 * The answer for anything a route threw. A coded error keeps its code, message and hint, with
 * every `hidden` text (the store's location, the server's working directory) replaced by
 * `<store>`: no file path of the server reaches a client. Anything else is `server/internal`
 * (500, logged by the caller), never its message.
 */
export function errorReply(e: unknown, hidden: readonly string[]): ErrorReply {
  if (!isCodedError(e)) return { status: 500, body: { error: { code: 'server/internal', message: 'internal error', hint: 'see the replica’s log' } } };
  const scrub = (t: string): string => hidden.filter((h) => h.length > 1).reduce((acc, h) => acc.split(h).join('<store>'), t);
  const status = outcomeOf(e.code).http;
  return { status, body: { error: { code: e.code, message: scrub(e.message), ...(e.hint ? { hint: scrub(e.hint) } : {}) } } };
}
