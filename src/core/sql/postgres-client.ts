/**
 * SqlClient over a pg Pool, plus LISTEN through a dedicated connection. int8 values (COUNT(*),
 * BIGINT columns) are returned as numbers when they are safe integers, as strings otherwise; the
 * parser is scoped to this pool, not installed globally.
 */
import type pgModule from 'pg';

type Pg = typeof pgModule;
let pgLoaded: Pg | undefined;
/** The driver is loaded by the first connection, so that a CLI which never connects does not pay for it. */
async function loadPg(): Promise<Pg> {
  return (pgLoaded ??= (await import('pg')).default);
}
import { CodedError } from '../errors.js';
import { toPostgresPlaceholders } from './placeholders.js';
import type { ListeningSqlClient, SqlExecutor, SqlRow, SqlValue, TransactionOptions } from './sql-client.js';
import { redactUrl } from './sql-url.js';

export interface PostgresClientOptions {
  readonly max?: number;
  readonly min?: number;
  /** Called with errors of idle pool connections or of a LISTEN connection (they must not crash the process). */
  readonly onBackgroundError?: (e: Error) => void;
}

const INT8 = 20;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    // only called by a pool or client, which exist once the driver is loaded
    const pg = pgLoaded as Pg;
    if (oid === INT8 && format !== 'binary') {
      return (v: string) => {
        const n = Number(v);
        return Number.isSafeInteger(n) ? n : v;
      };
    }
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

export async function openPostgresClient(url: string, options: PostgresClientOptions = {}): Promise<ListeningSqlClient> {
  const pg = await loadPg();
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 5, min: options.min ?? 0, types });
  const onError = options.onBackgroundError ?? (() => undefined);
  pool.on('error', onError);
  try {
    const c = await pool.connect();
    c.release();
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw new CodedError('SQL_CONNECT', `cannot connect to PostgreSQL at ${redactUrl(url)}: ${(e as Error).message}`, {
      hint: 'check the URL, that the server is up, and the credentials',
      cause: e,
    });
  }
  return new PostgresClient(pool, url, onError);
}

class PostgresClient implements ListeningSqlClient {
  readonly dialect = 'postgres' as const;
  private readonly stops = new Set<() => Promise<void>>();

  constructor(
    private readonly pool: pgModule.Pool,
    private readonly url: string,
    private readonly onError: (e: Error) => void,
  ) {}

  query<R extends SqlRow = SqlRow>(sql: string, params: readonly SqlValue[] = []): Promise<R[]> {
    return executor(this.pool).query<R>(sql, params);
  }

  run(sql: string, params: readonly SqlValue[] = []): Promise<{ readonly rowCount: number }> {
    return executor(this.pool).run(sql, params);
  }

  exec(script: string): Promise<void> {
    return executor(this.pool).exec(script);
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    // A checked-out client has no pool listener: a connection dropped mid-transaction (terminated
    // backend, server restart) emits 'error' on it, which must not become an uncaught exception.
    // The failed query rejects on its own; here the connection is only marked as not reusable.
    const onDrop = (e: Error) => {
      broken = true;
      this.onError(e);
    };
    client.on('error', onDrop);
    try {
      await client.query(options.readOnly ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
      const result = await fn(executor(client));
      await client.query('COMMIT');
      return result;
    } catch (e) {
      // a connection that cannot even roll back is not returned to the pool
      await client.query('ROLLBACK').catch(() => (broken = true));
      throw e;
    } finally {
      client.removeListener('error', onDrop);
      client.release(broken);
    }
  }

  /**
   * LISTEN on a dedicated connection. If that connection drops (server restart, terminated backend),
   * it is re-established every second until it works, and `onNotify('')` is then called once, since
   * notifications sent during the gap are lost; the caller's poll covers the gap.
   */
  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    let active = true;
    let current: pgModule.Client | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const connect = async (): Promise<void> => {
      const client = new (pgLoaded as Pg).Client({ connectionString: this.url, types });
      client.on('error', this.onError);
      client.on('notification', (m) => {
        if (m.channel === channel) onNotify(m.payload ?? '');
      });
      client.on('end', () => {
        if (current !== client) return;
        current = undefined;
        if (active) reconnectLater();
      });
      try {
        await client.connect();
        await client.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
      } catch (e) {
        await client.end().catch(() => undefined);
        throw e;
      }
      if (active) current = client;
      else await client.end().catch(() => undefined);
    };
    const reconnectLater = () => {
      retry = setTimeout(() => {
        connect().then(
          () => active && onNotify(''),
          (e: Error) => {
            this.onError(e);
            if (active) reconnectLater();
          },
        );
      }, 1000);
      retry.unref();
    };
    await connect();
    const stop = async () => {
      active = false;
      clearTimeout(retry);
      this.stops.delete(stop);
      const c = current;
      current = undefined;
      await c?.end().catch(() => undefined);
    };
    this.stops.add(stop);
    return stop;
  }

  async close(): Promise<void> {
    await Promise.all([...this.stops].map((stop) => stop()));
    await this.pool.end();
  }
}

function executor(q: pgModule.Pool | pgModule.PoolClient): SqlExecutor {
  return {
    dialect: 'postgres',
    async query<R extends SqlRow>(sql: string, params: readonly SqlValue[] = []): Promise<R[]> {
      const r = await q.query(toPostgresPlaceholders(sql), params as unknown[]);
      return r.rows as R[];
    },
    async run(sql: string, params: readonly SqlValue[] = []) {
      const r = await q.query(toPostgresPlaceholders(sql), params as unknown[]);
      return { rowCount: r.rowCount ?? 0 };
    },
    async exec(script: string) {
      await q.query(script);
    },
  };
}
