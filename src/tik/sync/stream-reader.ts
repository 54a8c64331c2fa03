import { TikError } from '../errors.js';

/**
 * Reads a message while it streams (a push body): the same fields as `ByteReader`, awaiting more
 * bytes as needed, holding only what the current field needs. A field's claimed length is checked
 * against its limit before any of its bytes is read.
 */
export class StreamReader {
  private head: Uint8Array = new Uint8Array(0);
  private at = 0;
  private consumed = 0;
  private ended = false;
  private readonly source: AsyncIterator<Uint8Array>;

  constructor(
    source: AsyncIterable<Uint8Array>,
    private readonly what: string,
  ) {
    this.source = source[Symbol.asyncIterator]();
  }

  /** Bytes read so far (the offset of the next field). */
  get offset(): number {
    return this.consumed;
  }

  private async fill(field: string, need: number): Promise<void> {
    while (this.head.length - this.at === 0) {
      const next = this.ended ? { done: true as const, value: undefined } : await this.source.next();
      if (next.done) {
        this.ended = true;
        throw new TikError('sync/truncated', `${this.what} is truncated: ${field} needs ${need} byte(s) at offset ${this.consumed}, the stream ended`, {
          where: `${this.what} @${this.consumed}`,
          hint: 'the body was cut off in transit; retry the sync (what was admitted before the cut is stored, whole events only)',
        });
      }
      this.head = next.value;
      this.at = 0;
    }
  }

  async byte(field: string): Promise<number> {
    await this.fill(field, 1);
    this.consumed++;
    return this.head[this.at++]!;
  }

  async bytes(n: number, field: string): Promise<Uint8Array> {
    await this.fill(field, n);
    if (this.head.length - this.at >= n) {
      // within one chunk: a view, no copy
      const out = this.head.subarray(this.at, this.at + n);
      this.at += n;
      this.consumed += n;
      return out;
    }
    const out = Buffer.allocUnsafe(n);
    let got = 0;
    while (got < n) {
      await this.fill(field, n - got);
      const take = Math.min(n - got, this.head.length - this.at);
      out.set(this.head.subarray(this.at, this.at + take), got);
      this.at += take;
      got += take;
      this.consumed += take;
    }
    return out;
  }

  async varint(field: string): Promise<number> {
    let n = 0;
    for (let i = 0; ; i++) {
      const b = await this.byte(field);
      n = n * 128 + (b & 0x7f);
      if (n > Number.MAX_SAFE_INTEGER || i > 8) {
        throw new TikError('sync/bad-message', `${this.what}: ${field} is a varint larger than 2^53`, { where: `${this.what} @${this.consumed}`, hint: 'the peer speaks another protocol version or sent garbage' });
      }
      if ((b & 0x80) === 0) return n;
    }
  }

  async lengthPrefixed(field: string, max: number): Promise<Uint8Array> {
    const n = await this.varint(`${field} length`);
    if (n > max) {
      throw new TikError('sync/too-large', `${this.what}: ${field} claims ${n} bytes, more than the limit ${max}`, { where: `${this.what} @${this.consumed}`, hint: 'the peer sent an oversized record (it was not read)' });
    }
    return this.bytes(n, field);
  }

  /** True when the stream has no byte left (awaits its end). */
  async atEnd(): Promise<boolean> {
    if (this.head.length - this.at > 0) return false;
    for (;;) {
      if (this.ended) return true;
      const next = await this.source.next();
      if (next.done) {
        this.ended = true;
        return true;
      }
      if (next.value.length > 0) {
        this.head = next.value;
        this.at = 0;
        return false;
      }
    }
  }
}
