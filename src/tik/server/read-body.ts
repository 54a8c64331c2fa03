import type { Readable } from 'node:stream';
import { TikError } from '../errors.js';

/**
 * Reads a request body while it streams, refusing it (`sync/too-large`) the moment it passes
 * `max` bytes, or before reading anything when its Content-Length already does; `check` sees the
 * first bytes so a body of the wrong kind is refused early too. Nothing past the limit is held;
 * with `requireLength`, a body without a Content-Length is refused (`sync/length-required`).
 */
export async function readBody(stream: Readable, declared: string | undefined, max: number, what: string, check?: (head: Uint8Array) => void, requireLength = false): Promise<Uint8Array> {
  const tooLarge = (n: number): TikError =>
    new TikError('sync/too-large', `${what} of at least ${n} bytes is larger than this replica's limit of ${max} bytes`, { where: what, hint: 'send smaller bundles (tik sync splits them by this limit)' });
  const size = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : undefined;
  if (size !== undefined && size > max) throw tooLarge(size);
  // A declared length lets the body land in one exact buffer: no growing copies of a large body.
  if (size === undefined && requireLength) {
    throw new TikError('sync/length-required', `${what} must declare its Content-Length`, { where: what, hint: 'send the bundle with a Content-Length header (tik sync does)' });
  }
  const exact = size !== undefined ? new Uint8Array(size) : undefined;
  const chunks: Buffer[] = [];
  let total = 0;
  let checked = check === undefined;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (total + chunk.length > max || (exact !== undefined && total + chunk.length > exact.length)) throw tooLarge(total + chunk.length);
    if (exact !== undefined) exact.set(chunk, total);
    else chunks.push(chunk);
    total += chunk.length;
    if (!checked && total >= 8) {
      checked = true;
      check!(exact !== undefined ? exact.subarray(0, total) : Buffer.concat(chunks));
    }
  }
  if (exact !== undefined) return total === exact.length ? exact : exact.subarray(0, total);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}
