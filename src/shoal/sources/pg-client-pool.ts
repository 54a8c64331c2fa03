/**
 * A small pool of `pg` clients for one PostgreSQL source. Not pg-pool: its checkout hands the
 * client over a tick later and arms a timer per checkout and per release, which on a point lookup
 * cost more than the round trip itself (bench/shoal/gateway.ts, `--direct`). Here an idle client
 * is handed over at once (the most recently used first: its prepared statements are warm), and
 * timers exist only while something waits: one per waiting checkout (a full pool), one sweep
 * while clients are idle.
 *
 * Same contract as the pg-pool it replaces: at most `max` connections; a checkout that finds the
 * pool full waits at most `connectionTimeoutMs` ("timeout exceeded when trying to connect"); an
 * idle connection is closed after about `idleTimeoutMs`; a connection that fails while idle is
 * dropped without crashing the process, and the next checkout gets a working one.
 */
import pg from 'pg';

export interface PgClientPoolOptions {
  /** Every connection's settings (server, credentials, session options, connect timeout). */
  readonly client: pg.ClientConfig;
  readonly max: number;
  readonly idleTimeoutMs: number;
  /** How long a checkout waits for a connection of a full pool. */
  readonly connectionTimeoutMs: number;
}

interface Waiter {
  readonly resolve: (c: pg.Client) => void;
  readonly reject: (e: unknown) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

export class PgClientPool {
  /** Idle clients, least recently used first, with when each was released. */
  private readonly idle: { readonly client: pg.Client; readonly since: number }[] = [];
  private readonly waiters: Waiter[] = [];
  /** Clients that failed (an 'error' or 'end' from the connection): closed, never handed out again. */
  private readonly broken = new WeakSet<pg.Client>();
  /** Connections open or opening. */
  private open = 0;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private ending = false;

  constructor(private readonly options: PgClientPoolOptions) {}

  /** A connected client, exclusively the caller's until `release`. */
  acquire(): Promise<pg.Client> {
    if (this.ending) return Promise.reject(new Error('Cannot use a pool after calling end on the pool'));
    const held = this.idle.pop();
    if (held !== undefined) {
      if (this.idle.length === 0) this.stopSweeping();
      return Promise.resolve(held.client);
    }
    if (this.open < this.options.max) return this.connect();
    return new Promise<pg.Client>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(new Error('timeout exceeded when trying to connect'));
        }, this.options.connectionTimeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** Give `client` back; `discard`: close it instead (a broken connection, or one not to be reused). */
  release(client: pg.Client, discard = false): void {
    if (discard || this.ending || this.broken.has(client)) {
      void this.close(client);
      this.serveWaiter();
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      clearTimeout(waiter.timer);
      waiter.resolve(client);
      return;
    }
    this.idle.push({ client, since: Date.now() });
    this.sweeper ??= setInterval(() => this.sweep(), Math.max(1, Math.ceil(this.options.idleTimeoutMs / 2))).unref();
  }

  /** Close every idle connection now, and each busy one when it is released; waiting checkouts fail. */
  async end(): Promise<void> {
    this.ending = true;
    this.stopSweeping();
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new Error('Cannot use a pool after calling end on the pool'));
    }
    await Promise.all(this.idle.splice(0).map(({ client }) => this.close(client)));
  }

  private async connect(): Promise<pg.Client> {
    this.open++;
    const client = new pg.Client(this.options.client);
    const fail = (): void => {
      this.broken.add(client);
      const i = this.idle.findIndex((h) => h.client === client);
      if (i >= 0) {
        this.idle.splice(i, 1);
        void this.close(client);
      }
    };
    // a connection lost while idle must not crash the process; one lost while busy fails its query
    client.on('error', fail);
    client.on('end', fail);
    try {
      await client.connect();
      return client;
    } catch (e) {
      this.broken.add(client);
      void this.close(client);
      this.serveWaiter();
      throw e;
    }
  }

  private close(client: pg.Client): Promise<void> {
    this.open--;
    return client.end().catch(() => undefined);
  }

  /** A connection was closed: the first waiter, if any, gets a new one. */
  private serveWaiter(): void {
    if (this.ending || this.waiters.length === 0 || this.open >= this.options.max) return;
    const waiter = this.waiters.shift()!;
    clearTimeout(waiter.timer);
    this.connect().then(waiter.resolve, waiter.reject);
  }

  private sweep(): void {
    const cutoff = Date.now() - this.options.idleTimeoutMs;
    while (this.idle.length > 0 && this.idle[0]!.since <= cutoff) void this.close(this.idle.shift()!.client);
    if (this.idle.length === 0) this.stopSweeping();
  }

  private stopSweeping(): void {
    if (this.sweeper !== undefined) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
