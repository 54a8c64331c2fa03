/**
 * Frames of the PostgreSQL frontend protocol read from a socket, bounded: the startup packet
 * (a length then a body, no type byte) and then typed messages (a type byte, a length, a body).
 * A length below its minimum or above the cap is a protocol violation, detected from the header
 * alone, so a client cannot make the server buffer more than the cap. Reading pauses the socket
 * while a message is waiting to be consumed (input backpressure).
 */
import type { Readable } from 'node:stream';
import { PgProtocolError } from './pg-protocol-error.js';

/** PostgreSQL's own cap on a startup packet (MAX_STARTUP_PACKET_LENGTH). */
export const MAX_STARTUP_PACKET = 10_000;

export interface Frame {
  /** The type byte as a character ('Q', 'P', …); '' for a startup-phase packet. */
  readonly type: string;
  readonly body: Buffer;
}

export class MessageReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private readonly onData = (chunk: Buffer): void => {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    // hold at most one cap's worth: the reader resumes the socket once it has taken a frame
    if (this.buffered > this.maxMessage) this.input.pause();
    this.notify();
  };
  private readonly onEnd = (): void => {
    this.ended = true;
    this.notify();
  };
  private readonly onError = (e: Error): void => {
    this.failure = e;
    this.notify();
  };

  constructor(
    private readonly input: Readable,
    /** The largest typed message accepted, length field included. */
    private readonly maxMessage: number,
  ) {
    input.on('data', this.onData);
    input.on('end', this.onEnd);
    input.on('close', this.onEnd);
    input.on('error', this.onError);
  }

  /** Stop reading this stream (the socket is handed to TLS); returns bytes read but not consumed. */
  detach(): Buffer {
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    this.input.off('error', this.onError);
    const rest = Buffer.concat(this.chunks);
    this.chunks = [];
    this.buffered = 0;
    return rest;
  }

  /** The next startup-phase packet (startup, SSLRequest, CancelRequest); undefined at end of input. */
  async startupPacket(): Promise<Frame | undefined> {
    const head = await this.peek(4);
    if (!head) return undefined;
    const length = head.readInt32BE(0);
    if (length < 8 || length > MAX_STARTUP_PACKET) throw new PgProtocolError(`invalid length of startup packet (${length})`, '08P01', true);
    const whole = await this.take(length);
    return whole ? { type: '', body: whole.subarray(4) } : undefined;
  }

  /** The next typed message; undefined at end of input (a half message then close is also the end). */
  async message(): Promise<Frame | undefined> {
    const head = await this.peek(5);
    if (!head) return undefined;
    const length = head.readInt32BE(1);
    if (length < 4) throw new PgProtocolError(`invalid message length ${length}`, '08P01', true);
    if (length + 1 > this.maxMessage) throw new PgProtocolError(`message of ${length} bytes is longer than the ${this.maxMessage - 1} accepted`, '08P01', true);
    const whole = await this.take(length + 1);
    return whole ? { type: String.fromCharCode(whole[0]!), body: whole.subarray(5) } : undefined;
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** Wait until `n` bytes are buffered (or the input ended); the first `n` bytes without consuming them. */
  private async peek(n: number): Promise<Buffer | undefined> {
    for (;;) {
      if (this.failure) throw this.failure;
      if (this.buffered >= n) {
        if (this.chunks[0]!.length < n) this.chunks = [Buffer.concat(this.chunks)];
        return this.chunks[0]!.subarray(0, n);
      }
      if (this.ended) return undefined;
      this.input.resume();
      await new Promise<void>((r) => (this.wake = r));
    }
  }

  private async take(n: number): Promise<Buffer | undefined> {
    if (!(await this.peek(n))) return undefined;
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    if (this.buffered <= this.maxMessage) this.input.resume();
    return out;
  }
}

/** Reads the fields of one message body; reading past its end is a protocol violation. */
export class BodyReader {
  private at = 0;

  constructor(private readonly body: Buffer) {}

  int16(): number {
    this.need(2);
    const v = this.body.readInt16BE(this.at);
    this.at += 2;
    return v;
  }

  int32(): number {
    this.need(4);
    const v = this.body.readInt32BE(this.at);
    this.at += 4;
    return v;
  }

  byte(): string {
    this.need(1);
    return String.fromCharCode(this.body[this.at++]!);
  }

  /** A NUL-terminated UTF-8 string. */
  cstring(): string {
    const end = this.body.indexOf(0, this.at);
    if (end < 0) throw new PgProtocolError('a string in the message is not NUL-terminated');
    const s = this.body.toString('utf8', this.at, end);
    this.at = end + 1;
    return s;
  }

  bytes(n: number): Buffer {
    if (n < 0) throw new PgProtocolError(`invalid field length ${n}`);
    this.need(n);
    const b = this.body.subarray(this.at, this.at + n);
    this.at += n;
    return b;
  }

  get remaining(): number {
    return this.body.length - this.at;
  }

  private need(n: number): void {
    if (this.at + n > this.body.length) throw new PgProtocolError('the message is shorter than its fields');
  }
}
