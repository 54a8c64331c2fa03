import { TikError } from '../errors.js';

/**
 * Reads a response body while it streams, refusing it as soon as it passes `max` bytes: a peer's
 * oversized answer is cut off, never buffered whole. A declared Content-Length above `max` is
 * refused before any body byte is read.
 */
export async function readCapped(res: Response, max: number, where: string, what: string): Promise<Uint8Array> {
  const tooLarge = (n: number): TikError =>
    new TikError('sync/peer-limit', `${what} from ${where} is larger than the limit of ${max} bytes (at least ${n})`, {
      where,
      hint: 'the peer answered more than was asked for; it is given up on for this sync (nothing past the limit was read)',
    });
  const declared = res.headers.get('content-length');
  // A compressed body (decoded by fetch as it is read) declares its compressed length: the cap
  // still holds for the decoded bytes, but no exact buffer can be sized from it.
  const encoded = (res.headers.get('content-encoding') ?? 'identity').trim().toLowerCase() !== 'identity';
  const size = declared !== null && /^\d+$/.test(declared) ? Number(declared) : undefined;
  if (size !== undefined && size > max) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge(size);
  }
  if (res.body === null) return new Uint8Array(0);
  const reader = res.body.getReader();
  // With a declared length, one exact buffer (no second copy); otherwise chunks joined at the end.
  const exact = size !== undefined && !encoded ? new Uint8Array(size) : undefined;
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.length > max || (exact !== undefined && total + value.length > exact.length)) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(total + value.length);
    }
    if (exact !== undefined) exact.set(value, total);
    else chunks.push(value);
    total += value.length;
  }
  if (exact !== undefined) {
    if (total !== exact.length) {
      throw new TikError('sync/truncated', `${what} from ${where} ended after ${total} of ${exact.length} bytes`, { where, hint: 'the connection was cut; retry the sync (nothing from this answer was stored)' });
    }
    return exact;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
