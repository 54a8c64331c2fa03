/**
 * A lease with fencing over one row of a shared SQL table (law S3, reused by tik's effect delivery,
 * law T6). Every operation is ONE conditional UPDATE that reads the database's clock; nothing holds
 * a lock or keeps a transaction open between operations, and a crashed holder is recovered simply
 * by its lease expiring.
 *
 * - `claim`: take the row if it is free or its lease has expired (`lease_until <= now`), and only
 *   if the caller's extra condition holds (shoal dedups on definition and input versions there).
 *   Each claim increments `lease_epoch`, the fencing token: every later step is fenced on
 *   (writer, epoch), so a holder that lost and re-won its own row cannot act on the old grant.
 * - `renew` (heartbeat): extend the lease while it is still held and unexpired, strictly
 *   (`lease_until > now`); it never moves the end backwards. `null` means the lease was lost: abort.
 * - `commit`: the fenced publish: clear the lease and apply the caller's assignments (shoal sets
 *   `snapshot_id` here) only while held and unexpired, strictly. `false` means lost: discard.
 * - `release`: give the row back after a failure or refusal, fenced on (writer, epoch) only.
 *
 * At `lease_until == now` the lease is already free for a claim and already dead for renew and
 * commit, so a reclaimer and the old holder can never both succeed (upstream's boundary bug).
 */
import { CodedError } from '../errors.js';
import type { SqlClient, SqlDialect, SqlExecutor, SqlValue } from '../sql/sql-client.js';
import { type DbClock, databaseClock } from './db-clock.js';
import { checkIdentifier } from './identifier.js';
import { DEFAULT_LEASE_MS } from './lease-columns.js';

/** A SQL fragment with `?` placeholders and its parameters. */
export interface SqlFragment {
  readonly sql: string;
  readonly params?: readonly SqlValue[];
}

/** An assignment value that means "the database clock, in epoch milliseconds". */
export const LEASE_NOW = Symbol('LEASE_NOW');

/** The value assigned to a column: a parameter, a SQL fragment, or the database clock. */
export type Assignment = SqlValue | SqlFragment | typeof LEASE_NOW;
export type Assignments = Readonly<Record<string, Assignment>>;

/** Where the leases live: a table with a text key column and the columns of LEASE_COLUMNS_DDL. */
export interface LeaseTable {
  readonly table: string;
  readonly keyColumn: string;
}

export interface LeaseOptions {
  /** Lease length in milliseconds (default 120 s). */
  readonly leaseMs?: number;
  /** The time source; production uses the database clock (the default), tests a clock table. */
  readonly clock?: DbClock;
}

/** A held lease: the proof a holder presents to renew, commit or release. */
export interface LeaseGrant {
  readonly key: string;
  readonly writer: string;
  /** The fencing token of this claim; strictly greater than every earlier claim's on the row. */
  readonly epoch: number;
  /** End of the lease on the database clock (epoch ms), as of the last claim or renew. */
  readonly untilMs: number;
  /** The writer whose expired lease this claim displaced, or null when the row was free. */
  readonly reclaimedFrom: string | null;
}

/** The row's lease as the database sees it now. */
export interface LeaseState {
  readonly key: string;
  readonly writer: string | null;
  readonly epoch: number;
  readonly untilMs: number | null;
  /** The database clock when read. */
  readonly nowMs: number;
  /** True while a writer holds an unexpired lease. */
  readonly live: boolean;
}

export interface ClaimOptions {
  /** Extra condition the row must satisfy (for example: not already at this version). */
  readonly condition?: SqlFragment;
  /** Extra assignments made by the same UPDATE (for example `status = 'refreshing'`). */
  readonly set?: Assignments;
  /** Run on this executor (an open transaction) instead of the lease's client. */
  readonly executor?: SqlExecutor;
}

export interface FenceOptions {
  readonly set?: Assignments;
  readonly executor?: SqlExecutor;
}

export class FencedLease {
  readonly leaseMs: number;
  private readonly clock: DbClock;
  private readonly table: string;
  private readonly key: string;

  constructor(
    private readonly db: SqlClient,
    where: LeaseTable,
    options: LeaseOptions = {},
  ) {
    this.table = checkIdentifier(where.table, 'lease table');
    this.key = checkIdentifier(where.keyColumn, 'lease key column');
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    if (!Number.isSafeInteger(this.leaseMs) || this.leaseMs <= 0) {
      throw new CodedError('LEASE_BAD_LENGTH', `lease length ${String(options.leaseMs)} ms is not a positive integer`, {
        hint: 'pass leaseMs as a whole number of milliseconds, for example 120000',
      });
    }
    this.clock = options.clock ?? databaseClock;
  }

  /** Claim `key` for `writer`; null when a live lease holds it, the condition fails, or the row is missing. */
  async claim(key: string, writer: string, options: ClaimOptions = {}): Promise<LeaseGrant | null> {
    const db = options.executor ?? this.db;
    const now = this.clock.sql(db.dialect);
    const extra = assignments(options.set, now);
    const cond = options.condition ? ` AND (${options.condition.sql})` : '';
    const sql =
      `UPDATE ${this.table} SET lease_prev_writer = writer, writer = ?, lease_until_ms = ${now} + ?, lease_epoch = lease_epoch + 1${extra.sql} ` +
      `WHERE ${this.key} = ? AND (writer IS NULL OR lease_until_ms IS NULL OR lease_until_ms <= ${now})${cond} ` +
      `RETURNING lease_epoch, lease_until_ms, lease_prev_writer`;
    const rows = await db.query<{ lease_epoch: unknown; lease_until_ms: unknown; lease_prev_writer: string | null }>(sql, [
      writer,
      this.leaseMs,
      ...extra.params,
      key,
      ...(options.condition?.params ?? []),
    ]);
    const row = rows[0];
    if (!row) return null;
    return {
      key,
      writer,
      epoch: Number(row.lease_epoch),
      untilMs: Number(row.lease_until_ms),
      reclaimedFrom: row.lease_prev_writer ?? null,
    };
  }

  /** Heartbeat: extend a held, unexpired lease. Null means it was lost and the holder must abort. */
  async renew(grant: LeaseGrant, executor?: SqlExecutor): Promise<LeaseGrant | null> {
    const db = executor ?? this.db;
    const now = this.clock.sql(db.dialect);
    const sql =
      `UPDATE ${this.table} SET lease_until_ms = ${greatest(db.dialect, 'lease_until_ms', `${now} + ?`)} ` +
      `WHERE ${this.key} = ? AND writer = ? AND lease_epoch = ? AND lease_until_ms > ${now} RETURNING lease_until_ms`;
    const rows = await db.query<{ lease_until_ms: unknown }>(sql, [this.leaseMs, grant.key, grant.writer, grant.epoch]);
    const row = rows[0];
    return row ? { ...grant, untilMs: Number(row.lease_until_ms) } : null;
  }

  /**
   * The fenced commit: clears the lease and applies `set`, only while `grant` is held and unexpired
   * (strictly). Pass an executor to make it part of a transaction (for example with a staging-table
   * rename). False means the lease was lost and the work must be discarded.
   */
  async commit(grant: LeaseGrant, options: FenceOptions = {}): Promise<boolean> {
    const db = options.executor ?? this.db;
    const now = this.clock.sql(db.dialect);
    return this.finish(db, grant, options.set, ` AND lease_until_ms > ${now}`);
  }

  /** Give the row back (after a failure or a refusal), fenced on writer and epoch only. */
  async release(grant: LeaseGrant, options: FenceOptions = {}): Promise<boolean> {
    return this.finish(options.executor ?? this.db, grant, options.set, '');
  }

  /** The row's lease as the database sees it now; null when the row does not exist. */
  async state(key: string, executor?: SqlExecutor): Promise<LeaseState | null> {
    const db = executor ?? this.db;
    const now = this.clock.sql(db.dialect);
    const rows = await db.query<{ writer: string | null; lease_until_ms: unknown; lease_epoch: unknown; now_ms: unknown }>(
      `SELECT writer, lease_until_ms, lease_epoch, ${now} AS now_ms FROM ${this.table} WHERE ${this.key} = ?`,
      [key],
    );
    const row = rows[0];
    if (!row) return null;
    const untilMs = row.lease_until_ms === null ? null : Number(row.lease_until_ms);
    const nowMs = Number(row.now_ms);
    return {
      key,
      writer: row.writer,
      epoch: Number(row.lease_epoch),
      untilMs,
      nowMs,
      live: row.writer !== null && untilMs !== null && untilMs > nowMs,
    };
  }

  private async finish(db: SqlExecutor, grant: LeaseGrant, set: Assignments | undefined, fence: string): Promise<boolean> {
    const now = this.clock.sql(db.dialect);
    const extra = assignments(set, now);
    const sql =
      `UPDATE ${this.table} SET writer = NULL, lease_until_ms = NULL, lease_prev_writer = NULL${extra.sql} ` +
      `WHERE ${this.key} = ? AND writer = ? AND lease_epoch = ?${fence}`;
    const r = await db.run(sql, [...extra.params, grant.key, grant.writer, grant.epoch]);
    return r.rowCount === 1;
  }
}

const RESERVED = new Set(['writer', 'lease_until_ms', 'lease_epoch', 'lease_prev_writer']);

function assignments(set: Assignments | undefined, now: string): { sql: string; params: SqlValue[] } {
  let sql = '';
  const params: SqlValue[] = [];
  for (const [column, value] of Object.entries(set ?? {})) {
    checkIdentifier(column, 'assigned column');
    if (RESERVED.has(column)) {
      throw new CodedError('LEASE_RESERVED_COLUMN', `column ${column} belongs to the lease and cannot be assigned by a caller`, {
        hint: 'claim, renew, commit and release maintain the lease columns themselves',
      });
    }
    if (value === LEASE_NOW) sql += `, ${column} = ${now}`;
    else if (isFragment(value)) {
      sql += `, ${column} = (${value.sql})`;
      params.push(...(value.params ?? []));
    } else {
      sql += `, ${column} = ?`;
      params.push(value);
    }
  }
  return { sql, params };
}

function isFragment(v: Assignment): v is SqlFragment {
  return typeof v === 'object' && v !== null && !(v instanceof Uint8Array) && typeof (v as SqlFragment).sql === 'string';
}

function greatest(dialect: SqlDialect, a: string, b: string): string {
  return dialect === 'postgres' ? `GREATEST(${a}, ${b})` : `max(${a}, ${b})`;
}
