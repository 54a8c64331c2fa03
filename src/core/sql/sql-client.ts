/**
 * A tiny async SQL interface over better-sqlite3 and pg, shared by tik's SQL stores and shoal's
 * control-plane registry. SQL is written once with `?` placeholders (normalised to `$n` for
 * PostgreSQL); booleans are bound as 1/0 on SQLite; int8 values come back as numbers when safe.
 */
export type SqlDialect = 'sqlite' | 'postgres';

export type SqlValue = string | number | bigint | boolean | null | Uint8Array;

export type SqlRow = Record<string, unknown>;

/** What both a client and an open transaction offer. */
export interface SqlExecutor {
  readonly dialect: SqlDialect;
  /** Run one statement and return its rows (`[]` for a statement that returns none). */
  query<R extends SqlRow = SqlRow>(sql: string, params?: readonly SqlValue[]): Promise<R[]>;
  /** Run one data-changing statement; `rowCount` is the number of rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<{ readonly rowCount: number }>;
  /** Run a script of one or more statements without parameters (DDL, migrations). */
  exec(script: string): Promise<void>;
}

export interface SqlClient extends SqlExecutor {
  /**
   * Run `fn` in one transaction: committed when it resolves, rolled back when it throws. On SQLite the
   * write lock is taken at BEGIN (BEGIN IMMEDIATE), on PostgreSQL transactions are READ COMMITTED; take
   * row locks (`SELECT … FOR UPDATE`) where serialisation matters. Don't use the client itself inside `fn`.
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, options?: TransactionOptions): Promise<T>;
  close(): Promise<void>;
}

export interface TransactionOptions {
  /**
   * A consistent read: SQLite takes no write lock (deferred BEGIN); PostgreSQL runs REPEATABLE READ
   * READ ONLY, so every statement sees one snapshot.
   */
  readonly readOnly?: boolean;
}

/** A PostgreSQL client can also LISTEN; the returned function stops listening. */
export interface ListeningSqlClient extends SqlClient {
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
}

export function canListen(client: SqlClient): client is ListeningSqlClient {
  return typeof (client as Partial<ListeningSqlClient>).listen === 'function';
}
