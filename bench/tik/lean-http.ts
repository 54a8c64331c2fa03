/**
 * A load generator's HTTP/1.1 client: one keep-alive socket, one GET at a time, the response read
 * by its Content-Length. It does a small fraction of node:http's work per request (and fetch's),
 * so on a shared 2-core machine the clients take less of the CPU the server under test needs.
 * Only for bench servers that answer with a Content-Length (Fastify does for a string body).
 */
import { connect, type Socket } from 'node:net';

export class LeanHttp {
  private readonly socket: Socket;
  private readonly ready: Promise<void>;
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: ((status: number) => void) | undefined;
  private failed: ((e: Error) => void) | undefined;

  constructor(port: number, host = '127.0.0.1') {
    this.socket = connect({ port, host, noDelay: true });
    this.ready = new Promise((resolve, reject) => {
      this.socket.once('connect', () => resolve());
      this.socket.once('error', reject);
    });
    this.socket.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
      this.drain();
    });
    this.socket.on('error', (e) => this.failed?.(e));
    this.socket.on('close', () => this.failed?.(new Error('connection closed')));
  }

  /** GET `path`; resolves with the status code once the whole body has arrived. */
  async get(path: string): Promise<number> {
    await this.ready;
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failed = reject;
      this.socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
    });
  }

  close(): void {
    this.failed = undefined;
    this.socket.destroy();
  }

  private drain(): void {
    const end = this.buffered.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = this.buffered.subarray(0, end).toString('latin1');
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (length === null) throw new Error(`no Content-Length in a response: ${head.slice(0, 200)}`);
    const total = end + 4 + Number(length[1]);
    if (this.buffered.length < total) return;
    this.buffered = this.buffered.subarray(total);
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve?.(Number(head.slice(9, 12)));
  }
}
