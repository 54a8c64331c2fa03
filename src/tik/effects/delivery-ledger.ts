/**
 * The shared record of effect deliveries (law T6: the one place tik coordinates), in one SQLite file
 * or PostgreSQL database every `tik serve` of a fleet points at. Two tables:
 *
 * - `<prefix>leases (pipeline PRIMARY KEY, lease columns)`: one fenced lease per pipeline
 *   (src/core/lease); only its holder sends that pipeline's effects.
 * - `<prefix>deliveries (key PRIMARY KEY, …, state pending|delivered|dead, attempts, last_error,
 *   next_attempt_at)`: one row per (ticket, stage, effect), keyed by the effect key.
 *
 * Any replica may add `pending` rows (discovery is idempotent by key and sends nothing). Every change
 * a sender makes — starting an attempt, recording `delivered`, a failure, a dead letter — is FENCED:
 * it runs in one transaction with a renew of the sender's lease and is rolled back when the renew
 * finds the lease lost or expired, so a sender that lost its lease never records anything. All times
 * are read from the database clock (injectable for tests), never from the instance.
 */
import { FencedLease, LEASE_COLUMNS_DDL, type DbClock, type LeaseGrant, type LeaseState, databaseClock } from '../../core/lease/index.js';
import type { SqlClient, SqlExecutor, SqlValue } from '../../core/sql/sql-client.js';
import { TikError } from '../errors.js';

export type DeliveryState = 'pending' | 'delivered' | 'dead';

/** A delivery found by a scan, before it is recorded. */
export interface NewDelivery {
  readonly key: string;
  readonly pipeline: string;
  readonly ticket: string;
  readonly stage: string;
  readonly type: string;
  readonly url: string;
  /** The JSON body POSTed (fixed when the row is first added, so every attempt sends the same bytes). */
  readonly payload: string;
}

export interface DeliveryRow extends NewDelivery {
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly lastError: string | null;
  /** Database-clock epoch ms before which no attempt is made. */
  readonly nextAttemptAt: number;
  readonly createdAt: number;
  readonly deliveredAt: number | null;
  /** The writer token and lease epoch of the sender that recorded the outcome. */
  readonly deliveredBy: string | null;
  readonly deliveredEpoch: number | null;
}

export interface DeliveryLedgerOptions {
  /** Table name prefix (default `tik_effect_`): `<prefix>leases`, `<prefix>deliveries`. */
  readonly prefix?: string;
  readonly leaseMs?: number;
  readonly clock?: DbClock;
}

const PREFIX = /^[a-z_][a-z0-9_]*$/;

export class DeliveryLedger {
  readonly lease: FencedLease;
  private readonly leases: string;
  private readonly deliveries: string;
  private readonly clock: DbClock;

  private constructor(
    readonly db: SqlClient,
    prefix: string,
    options: DeliveryLedgerOptions,
  ) {
    this.leases = `${prefix}leases`;
    this.deliveries = `${prefix}deliveries`;
    this.clock = options.clock ?? databaseClock;
    this.lease = new FencedLease(db, { table: this.leases, keyColumn: 'pipeline' }, { clock: this.clock, ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}) });
  }

  /** Open the ledger on a client, creating its tables if missing (safe when replicas start together). */
  static async open(db: SqlClient, options: DeliveryLedgerOptions = {}): Promise<DeliveryLedger> {
    const prefix = options.prefix ?? 'tik_effect_';
    if (!PREFIX.test(prefix)) {
      throw new TikError('effects/bad-prefix', `table prefix ${JSON.stringify(prefix)} is not a plain lower-case SQL identifier`, { hint: 'use letters, digits and underscores' });
    }
    const ledger = new DeliveryLedger(db, prefix, options);
    await ledger.createTables();
    return ledger;
  }

  private async createTables(): Promise<void> {
    const ddl = [
      `CREATE TABLE IF NOT EXISTS ${this.leases} (pipeline TEXT PRIMARY KEY, ${LEASE_COLUMNS_DDL})`,
      `CREATE TABLE IF NOT EXISTS ${this.deliveries} (
        key TEXT PRIMARY KEY, pipeline TEXT NOT NULL, ticket TEXT NOT NULL, stage TEXT NOT NULL, type TEXT NOT NULL,
        url TEXT NOT NULL, payload TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT, next_attempt_at BIGINT NOT NULL, created_at BIGINT NOT NULL, delivered_at BIGINT,
        delivered_by TEXT, delivered_epoch BIGINT)`,
      `CREATE INDEX IF NOT EXISTS ${this.deliveries}_due ON ${this.deliveries} (pipeline, state, next_attempt_at)`,
    ];
    for (const sql of ddl) {
      // Two replicas creating the same table at once on PostgreSQL can collide in the catalog
      // (unique violation on pg_type); the loser finds the table there on its retry.
      for (let attempt = 1; ; attempt++) {
        try {
          await this.db.exec(sql);
          break;
        } catch (e) {
          const code = (e as { code?: string }).code;
          if (attempt >= 5 || (code !== '23505' && code !== '42P07')) throw e;
        }
      }
    }
  }

  private now(ex: SqlExecutor = this.db): string {
    return this.clock.sql(ex.dialect);
  }

  /** Make sure a pipeline's lease row exists. */
  async addPipeline(pipeline: string): Promise<void> {
    await this.db.run(`INSERT INTO ${this.leases} (pipeline) VALUES (?) ON CONFLICT (pipeline) DO NOTHING`, [pipeline]);
  }

  /** Add pending rows for deliveries not recorded yet (idempotent by key); returns how many were new. */
  async discover(items: readonly NewDelivery[]): Promise<number> {
    let added = 0;
    for (const d of items) {
      const now = this.now();
      const r = await this.db.run(
        `INSERT INTO ${this.deliveries} (key, pipeline, ticket, stage, type, url, payload, state, attempts, next_attempt_at, created_at) ` +
          `VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ${now}, ${now}) ON CONFLICT (key) DO NOTHING`,
        [d.key, d.pipeline, d.ticket, d.stage, d.type, d.url, d.payload],
      );
      added += r.rowCount;
    }
    return added;
  }

  /** Which of `keys` already have a row (any state). */
  async known(keys: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < keys.length; i += 500) {
      const chunk = keys.slice(i, i + 500);
      const rows = await this.db.query<{ key: string }>(`SELECT key FROM ${this.deliveries} WHERE key IN (${chunk.map(() => '?').join(', ')})`, chunk);
      for (const r of rows) out.add(r.key);
    }
    return out;
  }

  /** Claim a pipeline's lease for `writer` (null: another writer holds it). */
  async claim(pipeline: string, writer: string): Promise<LeaseGrant | null> {
    await this.addPipeline(pipeline);
    return this.lease.claim(pipeline, writer);
  }

  /** Give a pipeline's lease back (fenced on writer and epoch). */
  async release(grant: LeaseGrant): Promise<boolean> {
    return this.lease.release(grant);
  }

  /** Pending deliveries of a pipeline whose next attempt is due on the database clock, oldest first. */
  async due(pipeline: string, limit = 100): Promise<DeliveryRow[]> {
    const rows = await this.db.query(
      `SELECT * FROM ${this.deliveries} WHERE pipeline = ? AND state = 'pending' AND next_attempt_at <= ${this.now()} ORDER BY created_at, key LIMIT ?`,
      [pipeline, limit],
    );
    return rows.map(toRow);
  }

  /**
   * Fenced: count an attempt as started and push `next_attempt_at` out by `backoffMs`, so a sender
   * that dies mid-send leaves a row the next lease holder retries after the backoff. Returns the
   * attempt number, or null when the lease is lost or the row is no longer pending.
   */
  async beginAttempt(grant: LeaseGrant, key: string, backoffMs: number): Promise<number | null> {
    return this.fenced(grant, async (tx) => {
      const rows = await tx.query<{ attempts: unknown }>(
        `UPDATE ${this.deliveries} SET attempts = attempts + 1, next_attempt_at = ${this.now(tx)} + ? WHERE key = ? AND state = 'pending' RETURNING attempts`,
        [backoffMs, key],
      );
      return rows[0] ? Number(rows[0].attempts) : null;
    });
  }

  /** Fenced: record the delivery (only once: the row must still be pending). False when lost. */
  async recordDelivered(grant: LeaseGrant, key: string): Promise<boolean> {
    return (
      (await this.fenced(grant, async (tx) =>
        this.finish(tx, key, `state = 'delivered', last_error = NULL, delivered_at = ${this.now(tx)}, delivered_by = ?, delivered_epoch = ?`, [grant.writer, grant.epoch]),
      )) ?? false
    );
  }

  /**
   * Fenced: record a failed attempt; the row turns `dead` (the dead letter) when `dead` is true,
   * else stays pending until its `next_attempt_at`. False when the lease is lost.
   */
  async recordFailure(grant: LeaseGrant, key: string, error: string, dead: boolean): Promise<boolean> {
    const set = dead ? `state = 'dead', last_error = ?, delivered_at = ${this.now()}, delivered_by = ?, delivered_epoch = ?` : `last_error = ?`;
    const params: SqlValue[] = dead ? [error.slice(0, 2000), grant.writer, grant.epoch] : [error.slice(0, 2000)];
    return (await this.fenced(grant, async (tx) => this.finish(tx, key, set, params))) ?? false;
  }

  private async finish(tx: SqlExecutor, key: string, set: string, params: readonly SqlValue[]): Promise<boolean> {
    const r = await tx.run(`UPDATE ${this.deliveries} SET ${set} WHERE key = ? AND state = 'pending'`, [...params, key]);
    return r.rowCount === 1;
  }

  /**
   * Run `fn` in one transaction with a renew of `grant`: the renew is the fence (it succeeds only
   * while the grant is held and unexpired on the database clock, and holds the lease row until the
   * transaction ends, so no claim can interleave). Null when the lease was lost; nothing is written.
   */
  private async fenced<T>(grant: LeaseGrant, fn: (tx: SqlExecutor) => Promise<T>): Promise<T | null> {
    const lost = Symbol('lost');
    const r = await this.db
      .transaction(async (tx) => {
        if (!(await this.lease.renew(grant, tx))) throw lost;
        return fn(tx);
      })
      .catch((e: unknown) => {
        if (e === lost) return lost;
        throw e;
      });
    return r === lost ? null : (r as T);
  }

  /** Every delivery row (optionally of one state), newest first. */
  async list(state?: DeliveryState, limit = 1000): Promise<DeliveryRow[]> {
    const where = state ? `WHERE state = ?` : '';
    const rows = await this.db.query(`SELECT * FROM ${this.deliveries} ${where} ORDER BY created_at DESC, key LIMIT ?`, state ? [state, limit] : [limit]);
    return rows.map(toRow);
  }

  /** One delivery row, or undefined. */
  async get(key: string): Promise<DeliveryRow | undefined> {
    const rows = await this.db.query(`SELECT * FROM ${this.deliveries} WHERE key = ?`, [key]);
    return rows[0] ? toRow(rows[0]) : undefined;
  }

  /** Row counts by state. */
  async counts(): Promise<Record<DeliveryState, number>> {
    const rows = await this.db.query<{ state: DeliveryState; n: unknown }>(`SELECT state, COUNT(*) AS n FROM ${this.deliveries} GROUP BY state`);
    const out: Record<DeliveryState, number> = { pending: 0, delivered: 0, dead: 0 };
    for (const r of rows) out[r.state] = Number(r.n);
    return out;
  }

  /** The lease of every pipeline with a row, as the database sees it now. */
  async pipelines(): Promise<LeaseState[]> {
    const rows = await this.db.query<{ pipeline: string }>(`SELECT pipeline FROM ${this.leases} ORDER BY pipeline`);
    const out: LeaseState[] = [];
    for (const r of rows) {
      const s = await this.lease.state(r.pipeline);
      if (s) out.push(s);
    }
    return out;
  }
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toRow(r: Record<string, unknown>): DeliveryRow {
  return Object.freeze({
    key: String(r.key),
    pipeline: String(r.pipeline),
    ticket: String(r.ticket),
    stage: String(r.stage),
    type: String(r.type),
    url: String(r.url),
    payload: String(r.payload),
    state: r.state as DeliveryState,
    attempts: Number(r.attempts),
    lastError: (r.last_error as string | null) ?? null,
    nextAttemptAt: Number(r.next_attempt_at),
    createdAt: Number(r.created_at),
    deliveredAt: num(r.delivered_at),
    deliveredBy: (r.delivered_by as string | null) ?? null,
    deliveredEpoch: num(r.delivered_epoch),
  });
}
