import { open } from 'node:fs/promises';
import { refusal } from './admit-record.js';
import { mebibytes } from './limits.js';

/**
 * Reads a file, refusing (`admission/too-large`) once more than `limit` bytes have been read:
 * the read stops there, so an endless input (`/dev/zero`, a growing file) costs at most `limit`
 * bytes of memory. Returns undefined when the file cannot be opened or read.
 */
export async function readFileBounded(path: string, limit: number, what = 'the file'): Promise<Buffer | undefined> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, limit + 1 - total));
      let n: number;
      try {
        ({ bytesRead: n } = await fh.read(chunk, 0, chunk.length, null));
      } catch {
        return undefined;
      }
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > limit) {
        throw refusal('too-large', `${what} is larger than ${mebibytes(limit)}, the limit every replica accepts`, path, `keep it under ${mebibytes(limit)}; reading stopped at the limit`);
      }
    }
    return Buffer.concat(chunks, total);
  } finally {
    await fh.close();
  }
}
