/**
 * The pgwire listener in process over a real instance (a CSV source, provider none), spoken to
 * message by message, so the protocol's sequencing is checked exactly: row limits and
 * PortalSuspended, discarding after an error until Sync, several statements in one Query, the
 * startup timeout and the connection cap.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/shoal/check/load-config.js';
import { ShoalInstance } from '../../../src/shoal/instance/instance.js';
import { createPgServer, type PgServer } from '../../../src/shoal/pgwire/pg-server.js';

interface Message {
  readonly type: string;
  readonly body: Buffer;
}

const frame = (type: string, body: Buffer): Buffer => {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
};
const cstr = (s: string): Buffer => Buffer.from(`${s}\0`, 'utf8');
const i16 = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
};
const i32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

const startupPacket = (user: string): Buffer => {
  const body = Buffer.concat([i32(196_608), cstr('user'), cstr(user), cstr('database'), cstr('shoal'), Buffer.from([0])]);
  return Buffer.concat([i32(body.length + 4), body]);
};
const parse = (name: string, sql: string) => frame('P', Buffer.concat([cstr(name), cstr(sql), i16(0)]));
const bind = (portal: string, stmt: string) => frame('B', Buffer.concat([cstr(portal), cstr(stmt), i16(0), i16(0), i16(0)]));
const execute = (portal: string, max: number) => frame('E', Buffer.concat([cstr(portal), i32(max)]));
const sync = () => frame('S', Buffer.alloc(0));
const query = (sql: string) => frame('Q', cstr(sql));

/** A raw frontend: sends bytes, reads backend messages. */
class RawClient {
  private buf = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  closed = false;
  readonly socket: Socket;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (b: Buffer) => {
      this.buf = Buffer.concat([this.buf, b]);
      this.waiting?.();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.waiting?.();
    });
    this.socket.on('error', () => undefined);
  }

  send(...parts: Buffer[]): void {
    this.socket.write(Buffer.concat(parts));
  }

  /** Messages up to and including the first of type `last` (or until the server closes). */
  async until(last: string): Promise<Message[]> {
    const out: Message[] = [];
    for (;;) {
      while (this.buf.length >= 5 && this.buf.length >= this.buf.readInt32BE(1) + 1) {
        const len = this.buf.readInt32BE(1);
        const m = { type: String.fromCharCode(this.buf[0]!), body: this.buf.subarray(5, len + 1) };
        this.buf = this.buf.subarray(len + 1);
        out.push(m);
        if (m.type === last) return out;
      }
      if (this.closed) return out;
      await new Promise<void>((r) => (this.waiting = r));
    }
  }

  async started(): Promise<void> {
    this.send(startupPacket('tester'));
    const ms = await this.until('Z');
    expect(ms.at(-1)?.type).toBe('Z');
  }

  async closedByServer(): Promise<void> {
    while (!this.closed) await new Promise<void>((r) => (this.waiting = r));
  }
}

const types = (ms: readonly Message[]): string => ms.map((m) => m.type).join('');

describe('the pgwire listener, message by message', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-pgwire-unit-'));
  let instance: ShoalInstance;
  let server: PgServer;
  let port: number;
  const clients: RawClient[] = [];
  const client = (): RawClient => {
    const c = new RawClient(port);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    writeFileSync(join(dir, 'orders.csv'), 'id,region\n1,eu\n2,us\n3,eu\n');
    writeFileSync(join(dir, 'shoal.yaml'), `control_plane: {tenant_url: "sqlite:///registry.db"}
auth: {provider: none, default_role: admin}
domains: [{id: sales}]
sources: [{id: orders-csv, type: csv, path: orders.csv}]
tables:
  - {source_id: orders-csv, domain_id: sales, table: orders, columns: [{name: id, data_type: integer}, {name: region, data_type: varchar}]}
roles:
  - {id: admin, capabilities: [admin], domain_access: ["*"]}
`);
    instance = await ShoalInstance.start({ config: loadConfig({ path: join(dir, 'shoal.yaml') }).config, baseDir: dir, mv: { tickMs: 0 }, hot: false, resultCache: false });
    server = createPgServer({ context: { service: instance, auth: instance.auth! }, startupTimeoutMs: 300 });
    port = await server.listen(0, '127.0.0.1');
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) c.socket.destroy();
    await server?.close();
    await instance?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('Execute with a row limit suspends the portal and the next Execute continues it', async () => {
    const c = client();
    await c.started();
    c.send(parse('s1', 'SELECT id FROM sales.orders ORDER BY id'), bind('p1', 's1'), execute('p1', 1), execute('p1', 1), execute('p1', 0), sync());
    const ms = await c.until('Z');
    expect(types(ms)).toBe('12DsDsDCZ');
    expect(ms.filter((m) => m.type === 'D').map((m) => m.body.subarray(6).toString())).toEqual(['1', '2', '3']);
    expect(ms.find((m) => m.type === 'C')?.body.toString()).toBe('SELECT 3\0');
    c.socket.destroy();
  });

  it('after an error the extended protocol discards messages until Sync, then serves again', async () => {
    const c = client();
    await c.started();
    c.send(bind('', 'no-such-statement'), execute('', 0), parse('', 'SELECT 1 AS one'), sync());
    const ms = await c.until('Z');
    expect(types(ms)).toBe('EZ');
    expect(ms[0]!.body.toString()).toContain('26000');
    c.send(parse('', 'SELECT 1 AS one'), bind('', ''), execute('', 0), sync());
    expect(types(await c.until('Z'))).toBe('12DCZ');
    c.socket.destroy();
  });

  it('a Query message answers each statement in turn, and an empty one with EmptyQueryResponse', async () => {
    const c = client();
    await c.started();
    c.send(query('SELECT 1 AS a; SELECT region FROM sales.orders WHERE id = 2'));
    expect(types(await c.until('Z'))).toBe('TDCTDCZ');
    c.send(query(' -- nothing\n'));
    expect(types(await c.until('Z'))).toBe('IZ');
    c.socket.destroy();
  });

  it('a client that does not finish its startup is disconnected', async () => {
    const c = client();
    c.send(Buffer.from([0, 0]));
    await c.closedByServer();
    expect(c.closed).toBe(true);
  });

  it('connections beyond the cap are refused with 53300', async () => {
    // a listener of its own, so connections the other tests closed are not still counted
    const capped = createPgServer({ context: { service: instance, auth: instance.auth! }, maxConnections: 2 });
    const cappedPort = await capped.listen(0, '127.0.0.1');
    try {
      const held = [new RawClient(cappedPort), new RawClient(cappedPort)];
      for (const c of held) await c.started();
      const extra = new RawClient(cappedPort);
      const ms = await extra.until('E');
      expect(ms.at(-1)?.body.toString()).toContain('53300');
      await extra.closedByServer();
      for (const c of held) c.socket.destroy();
    } finally {
      await capped.close();
    }
  });
});
