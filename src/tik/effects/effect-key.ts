/**
 * The delivery id of one effect firing, also sent as the `Idempotency-Key` header. Upstream keys an
 * effect by `sha256-hex(pr-str [ticket stage type url to command topic chat-id])` with no head, so
 * the key names "this effect for this ticket reaching this stage", whatever events got it there.
 *
 * We hash exactly the same vector, with the values a webhook has: the ticket as a `#uuid`, the stage
 * and type as keywords, the URL as a string, and `nil` for the fields other effect types use:
 *
 *   [#uuid "018f…" :resolved :webhook "https://hooks.example/tik" nil nil nil nil]
 *
 * The key is the lower-case hex SHA-256 of that text's UTF-8 (64 digits, no prefix). It depends on
 * nothing a replica chooses (no head, no time, no pipeline), so every replica computes the same key
 * and a retry after a crash carries the key of the first attempt.
 */
import { sha256Hex } from '../../core/hash.js';
import { Keyword, prStr, uuid } from '../edn/index.js';
import type { EffectRule } from './effects-config.js';

/** The text hashed for (ticket, stage, rule): see the module comment. */
export function effectKeyText(ticket: string, stage: string, rule: Pick<EffectRule, 'type' | 'url'>): string {
  return prStr(Object.freeze([uuid(ticket), Keyword.of(stage), Keyword.of(rule.type), rule.url, null, null, null, null]));
}

/** `sha256-hex(pr-str [ticket stage type url nil nil nil nil])`. */
export function effectKey(ticket: string, stage: string, rule: Pick<EffectRule, 'type' | 'url'>): string {
  return sha256Hex(effectKeyText(ticket, stage, rule));
}
