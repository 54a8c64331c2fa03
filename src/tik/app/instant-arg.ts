import { readEdn } from '../edn/index.js';
import { isInstant, type Instant } from '../edn/value.js';
import { TikError } from '../errors.js';

/**
 * Parse an instant given on the command line or in `TIK_NOW`: either the bare ISO text
 * (`2026-07-08T12:00:00Z`, read by the same rules as `#inst`) or the EDN form `#inst "…"`.
 */
export function parseInstantText(text: string, where: string): Instant {
  const trimmed = text.trim();
  const form = trimmed.startsWith('#inst') ? trimmed : `#inst ${JSON.stringify(trimmed)}`;
  let value;
  try {
    value = readEdn(form, where);
  } catch {
    value = undefined;
  }
  if (!isInstant(value)) {
    throw new TikError('cli/bad-instant', `${where}: "${text}" is not an instant`, {
      where,
      hint: 'write an ISO-8601 UTC instant such as 2026-07-08T12:00:00Z',
    });
  }
  return value;
}
