/**
 * The shared hot backend: blobs and generations in Redis, invalidations over Redis pub/sub, so an
 * invalidation on one instance reaches every instance as soon as the message arrives.
 *
 * An outage never reaches a client: commands fail fast (no offline queue, a short command
 * timeout), the backend reports itself unhealthy (the cache then serves nothing and queries run
 * live), and it reconnects in the background. Messages published while this instance was
 * disconnected are lost (and loads failed), so every subscription is reported as "invalidate all"
 * (drop every copy and reload).
 */
import { Redis } from 'ioredis';
import { type HotBackend, type HotBlob, type HotInvalidation, type HotKeys, hotKeys } from './hot-backend.js';

/** Store a blob only while its generation is current (atomic on the server). */
const WRITE_IF_CURRENT = `
local g = redis.call('GET', KEYS[1])
if not g then g = '0' end
if g ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
return 1`;

export interface RedisHotBackendOptions {
  /** Per-command timeout in milliseconds (default 1000). */
  readonly commandTimeoutMs?: number;
  /** Called with connection errors (logged by the caller; they never reach a query). */
  readonly onError?: (e: unknown) => void;
  /** The deployment id keys and the channel live under (default `local`; see hotKeys). */
  readonly namespace?: string;
}

export class RedisHotBackend implements HotBackend {
  readonly kind = 'redis' as const;
  private readonly client: Redis;
  private readonly sub: Redis;
  private readonly handlers: ((inv: HotInvalidation) => void)[] = [];
  private subscribed = false;
  private closed = false;
  /** A resync ("invalidate all") is owed once both connections are usable again. */
  private resyncOwed = false;
  private readonly keys: HotKeys;

  constructor(url: string, options: RedisHotBackendOptions = {}) {
    this.keys = hotKeys(options.namespace ?? 'local');
    const common = {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 1000,
      connectTimeout: 2000,
      retryStrategy: (n: number) => Math.min(100 * n, 1000),
    };
    const onError = options.onError ?? (() => undefined);
    this.client = new Redis(url, common);
    this.sub = new Redis(url, { ...common, autoResubscribe: false });
    this.client.on('error', onError);
    this.sub.on('error', onError);
    this.sub.on('close', () => {
      this.subscribed = false;
      this.resyncOwed = true;
    });
    this.client.on('close', () => {
      this.resyncOwed = true;
    });
    // The two connections come back in either order; the resync is announced when the later one
    // is ready, since the reloads it triggers need the command connection.
    this.client.on('ready', () => this.announceResync());
    this.sub.on('ready', () => {
      this.sub.subscribe(this.keys.channel).then(
        () => {
          this.subscribed = true;
          this.resyncOwed = true;
          this.announceResync();
        },
        onError,
      );
    });
    this.sub.on('message', (channel: string, message: string) => {
      if (channel !== this.keys.channel) return;
      const inv = parseInvalidation(message);
      if (inv) this.emit(inv);
    });
    this.client.connect().catch(onError);
    this.sub.connect().catch(onError);
  }

  /** Whatever was published while we were away is lost, and loads failed meanwhile: start over. */
  private announceResync(): void {
    if (!this.resyncOwed || !this.healthy()) return;
    this.resyncOwed = false;
    this.emit({ all: true });
  }

  /** Resolve once connected and subscribed (start-up waits for this, within a deadline). */
  async ready(timeoutMs = 2000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.healthy() && Date.now() < deadline && !this.closed) await new Promise((r) => setTimeout(r, 20));
    return this.healthy();
  }

  healthy(): boolean {
    return !this.closed && this.subscribed && this.client.status === 'ready' && this.sub.status === 'ready';
  }

  async generation(table: string): Promise<string> {
    return (await this.client.get(this.keys.generation(table))) ?? '0';
  }

  async read(table: string): Promise<HotBlob | undefined> {
    const v = await this.client.get(this.keys.blob(table));
    if (v === null) return undefined;
    const nl = v.indexOf('\n');
    if (nl < 0) return undefined;
    return { generation: v.slice(0, nl), json: v.slice(nl + 1) };
  }

  async write(table: string, blob: HotBlob, ttlSeconds: number): Promise<boolean> {
    const r = await this.client.eval(
      WRITE_IF_CURRENT, 2, this.keys.generation(table), this.keys.blob(table),
      blob.generation, `${blob.generation}\n${blob.json}`, String(Math.max(1, Math.ceil(ttlSeconds))),
    );
    return r === 1;
  }

  async invalidate(tables: readonly string[] | 'all'): Promise<void> {
    const names = tables === 'all' ? await this.knownTables() : tables;
    if (names.length > 0) {
      const m = this.client.multi();
      for (const t of names) m.incr(this.keys.generation(t)).del(this.keys.blob(t));
      await m.exec();
    }
    const messages: HotInvalidation[] = tables === 'all' ? [{ all: true }] : tables.map((table) => ({ table }));
    for (const inv of messages) await this.client.publish(this.keys.channel, JSON.stringify(inv));
  }

  /** Every table with a blob or a generation in Redis. */
  private async knownTables(): Promise<string[]> {
    const out = new Set<string>();
    for (const suffix of ['blob', 'gen'] as const) {
      let cursor = '0';
      do {
        const [next, keys] = await this.client.scan(cursor, 'MATCH', this.keys.pattern(suffix), 'COUNT', 200);
        cursor = next;
        for (const k of keys) {
          const table = this.keys.tableOf(k, suffix);
          if (table !== undefined) out.add(table);
        }
      } while (cursor !== '0');
    }
    return [...out];
  }

  subscribe(handler: (inv: HotInvalidation) => void): void {
    this.handlers.push(handler);
  }

  private emit(inv: HotInvalidation): void {
    for (const h of this.handlers) h(inv);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.client.disconnect();
    this.sub.disconnect();
  }
}

function parseInvalidation(message: string): HotInvalidation | undefined {
  try {
    const v = JSON.parse(message) as { table?: unknown; all?: unknown };
    if (v.all === true) return { all: true };
    if (typeof v.table === 'string') return { table: v.table };
  } catch {
    // not ours
  }
  return undefined;
}
