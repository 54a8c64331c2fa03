import { TikError } from '../errors.js';

/**
 * Byte writing and reading for the sync wire formats. Varints are Negentropy's: unsigned,
 * big-endian base-128, the high bit set on every byte but the last. Numbers stay below 2^53.
 */
export class ByteWriter {
  private chunks: Uint8Array[] = [];
  private size = 0;

  get length(): number {
    return this.size;
  }

  bytes(b: Uint8Array): void {
    this.chunks.push(b);
    this.size += b.length;
  }

  byte(v: number): void {
    this.bytes(Uint8Array.of(v & 0xff));
  }

  varint(n: number): void {
    this.bytes(encodeVarint(n));
  }

  /** A varint length followed by the bytes. */
  lengthPrefixed(b: Uint8Array): void {
    this.varint(b.length);
    this.bytes(b);
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    this.chunks = [out];
    return out;
  }
}

export function encodeVarint(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new TikError('sync/varint', `cannot encode ${n} as a varint`, { hint: 'a bug: varints are non-negative integers below 2^53' });
  const digits: number[] = [];
  do {
    digits.push(n % 128);
    n = Math.floor(n / 128);
  } while (n > 0);
  digits.reverse();
  for (let i = 0; i < digits.length - 1; i++) digits[i]! |= 0x80;
  return Uint8Array.from(digits);
}

/** Reads a message; every overrun is a `sync/truncated` error naming what was being read. */
export class ByteReader {
  private at = 0;

  constructor(
    private readonly buf: Uint8Array,
    private readonly what: string,
  ) {}

  get done(): boolean {
    return this.at >= this.buf.length;
  }

  get offset(): number {
    return this.at;
  }

  private need(n: number, field: string): void {
    if (this.at + n > this.buf.length) {
      throw new TikError('sync/truncated', `${this.what} is truncated: ${field} needs ${n} byte(s) at offset ${this.at}, only ${this.buf.length - this.at} left`, {
        where: `${this.what} @${this.at}`,
        hint: 'the body was cut off in transit; retry the sync (nothing was stored from this message)',
      });
    }
  }

  byte(field: string): number {
    this.need(1, field);
    return this.buf[this.at++]!;
  }

  bytes(n: number, field: string): Uint8Array {
    this.need(n, field);
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  varint(field: string): number {
    let n = 0;
    for (let i = 0; ; i++) {
      const b = this.byte(field);
      n = n * 128 + (b & 0x7f);
      if (n > Number.MAX_SAFE_INTEGER || i > 8) {
        throw new TikError('sync/bad-message', `${this.what}: ${field} is a varint larger than 2^53`, { where: `${this.what} @${this.at}`, hint: 'the peer speaks another protocol version or sent garbage' });
      }
      if ((b & 0x80) === 0) return n;
    }
  }

  lengthPrefixed(field: string, max: number): Uint8Array {
    const n = this.varint(`${field} length`);
    if (n > max) {
      throw new TikError('sync/too-large', `${this.what}: ${field} claims ${n} bytes, more than the limit ${max}`, { where: `${this.what} @${this.at}`, hint: 'the peer sent an oversized record' });
    }
    return this.bytes(n, field);
  }
}
