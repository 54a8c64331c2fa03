import { gzip } from 'node:zlib';
import { promisify } from 'node:util';

/**
 * Compression of fetch answers (docs/tik-sync.md, "Compression"). Event files are EDN text that
 * deflates to well under half its size, while the ids around them do not compress; a compressed
 * answer brings a full sync under the bytes of copying the files.
 *
 * Opt-in per request, so every older peer keeps working: an initiator that can decode sends
 * `x-tik-bundle-encoding: gzip`; a responder that sees it may answer with `Content-Encoding: gzip`
 * (the bundle bytes are the same before compression). A responder that does not know the header
 * answers uncompressed, and one that knows it never compresses for an initiator that did not ask
 * (HTTP clients send `Accept-Encoding: gzip` on their own, and older initiators size their read
 * buffer from Content-Length, so that header cannot be the signal).
 */
export const BUNDLE_ENCODING_HEADER = 'x-tik-bundle-encoding';
export const BUNDLE_ENCODING = 'gzip';

/** True if the request's `x-tik-bundle-encoding` lists gzip. */
export function acceptsGzipBundle(header: string | string[] | undefined): boolean {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values.some((v) => v.split(',').some((t) => t.trim().toLowerCase() === BUNDLE_ENCODING));
}

const gzipAsync = promisify(gzip);

/**
 * Level 1: the text is repetitive (keywords, the ticket's uuid, the parent's hex id), so the fast
 * level already finds most of it, and compression stays far below the cost of reading the events.
 * Runs on the thread pool, not the event loop.
 */
export function gzipBundle(bundle: Uint8Array): Promise<Buffer> {
  return gzipAsync(bundle, { level: 1 });
}
