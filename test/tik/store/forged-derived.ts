import { createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * Forgeries of a derived file (src/tik/store/derived-file.ts) whose body has `from` replaced by
 * `to`: one with a plain SHA-256 header (what anyone can recompute), one with an HMAC under a key
 * that is not this user's (a file made elsewhere). Neither may be trusted.
 */
export function forgedDerived(text: string, from: string, to: string): string[] {
  const nl = text.indexOf('\n');
  const format = text.slice(0, nl).split(' ')[0]!;
  const body = text.slice(nl + 1).replace(from, to);
  if (!body.includes(to)) throw new Error(`"${from}" is not in the derived file`);
  return forgedWithBody(format, body);
}

/** The same two forgeries of a derived file of `format` holding `body`. */
export function forgedWithBody(format: string, body: string): string[] {
  return [`${format} sha256-${createHash('sha256').update(body).digest('hex')}\n${body}`, `${format} hmac-sha256-${createHmac('sha256', randomBytes(32)).update(body).digest('hex')}\n${body}`];
}
