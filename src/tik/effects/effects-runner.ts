/**
 * The effect loop of `tik serve` (law T6). Every `intervalMs`:
 *
 * 1. scan this replica's store for reached stages that match a rule and add the missing
 *    deliveries as `pending` rows of the shared ledger (idempotent by effect key; sends nothing);
 * 2. for each pipeline, try to claim its lease; the one holder across the fleet sends that
 *    pipeline's due rows — whoever discovered them — one at a time, under a heartbeat:
 *    fenced "attempt started" → POST with `Idempotency-Key` → fenced `delivered`, or a fenced
 *    failure with backoff, or a dead letter after `maxAttempts`; then it releases the lease.
 *
 * Delivery never writes events. A sender that dies between the POST and the record leaves the row
 * pending; after its lease expires another replica retries it with the same key (at-least-once
 * delivery, exactly-once effect at receivers that honour the key). Rounds never overlap.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { realSchedule, startHeartbeat, type LeaseGrant, type Schedule } from '../../core/lease/index.js';
import type { Instant } from '../edn/index.js';
import type { EventStore } from '../store/store.js';
import { backoffMs, type Backoff } from './backoff.js';
import type { DeliveryLedger, DeliveryRow } from './delivery-ledger.js';
import type { EffectsConfig } from './effects-config.js';
import { scanReached } from './scan-reached.js';
import type { SendWebhook } from './webhook-sender.js';

export interface EffectsLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface EffectsRunnerOptions {
  readonly store: EventStore;
  readonly config: EffectsConfig;
  readonly ledger: DeliveryLedger;
  readonly send: SendWebhook;
  /** The instant stages are derived at (the replica's clock; TIK_NOW in tests). */
  readonly now: () => Instant;
  readonly intervalMs: number;
  /** Attempts before a delivery is dead-lettered. */
  readonly maxAttempts: number;
  readonly backoff: Backoff;
  /** This sender's lease token (default: host/pid/random). */
  readonly writer?: string;
  /** Timer for rounds and heartbeats (tests inject one). */
  readonly schedule?: Schedule;
  readonly log?: EffectsLog;
}

/** What one round did. */
export interface RoundReport {
  readonly discovered: number;
  readonly skippedTickets: number;
  /** Pipelines this replica held the lease of during the round. */
  readonly held: readonly string[];
  readonly delivered: number;
  readonly failed: number;
  readonly dead: number;
  /** Sends whose outcome could not be recorded because the lease was lost meanwhile. */
  readonly lost: number;
}

const quiet: EffectsLog = { info: () => undefined, warn: () => undefined };

/** A writer token that is unique per process start. */
export function defaultWriter(): string {
  return `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;
}

export class EffectsRunner {
  readonly writer: string;
  /** Completed rounds. */
  rounds = 0;
  lastRound: RoundReport | undefined;
  lastError: string | undefined;
  /** Outcomes since this runner started. */
  readonly totals = { delivered: 0, failed: 0, dead: 0, lost: 0 };
  private readonly known = new Set<string>();
  private readonly schedule: Schedule;
  private readonly log: EffectsLog;
  private cancel: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Aborts an in-flight POST when the server stops. */
  private readonly stopping = new AbortController();

  constructor(private readonly o: EffectsRunnerOptions) {
    this.writer = o.writer ?? defaultWriter();
    this.schedule = o.schedule ?? realSchedule;
    this.log = o.log ?? quiet;
  }

  start(): void {
    const tick = (): void => {
      if (this.stopped) return;
      this.running = this.round().then(
        () => undefined,
        (e: unknown) => {
          this.lastError = (e as Error).message;
          this.log.warn({ error: this.lastError }, 'effects: round failed');
        },
      );
      void this.running.finally(() => {
        this.running = undefined;
        if (!this.stopped) this.cancel = this.schedule(tick, this.o.intervalMs);
      });
    };
    this.cancel = this.schedule(tick, 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    this.stopping.abort(new Error('tik serve is stopping'));
    await this.running;
  }

  /** One round: discover, then deliver for every pipeline whose lease this replica wins. */
  async round(): Promise<RoundReport> {
    const { ledger, config } = this.o;
    const scan = await scanReached(this.o.store, config.rules, this.o.now());
    const fresh = new Map<string, (typeof scan.due)[number]>();
    for (const d of scan.due) if (!this.known.has(d.key) && !fresh.has(d.key)) fresh.set(d.key, d);
    let discovered = 0;
    if (fresh.size > 0) {
      const already = await ledger.known([...fresh.keys()]);
      discovered = await ledger.discover([...fresh.values()].filter((d) => !already.has(d.key)));
      for (const k of fresh.keys()) this.known.add(k);
      if (discovered > 0) this.log.info({ discovered }, 'effects: new deliveries recorded');
    }
    const totals = { delivered: 0, failed: 0, dead: 0, lost: 0 };
    const held: string[] = [];
    for (const pipeline of config.pipelines) {
      if (this.stopped) break;
      const grant = await ledger.claim(pipeline, this.writer);
      if (!grant) continue;
      held.push(pipeline);
      if (grant.reclaimedFrom) this.log.info({ pipeline, from: grant.reclaimedFrom, epoch: grant.epoch }, 'effects: took over an expired lease');
      const beat = startHeartbeat(ledger.lease, grant, { schedule: this.schedule, onError: (e) => this.log.warn({ pipeline, error: (e as Error).message }, 'effects: lease renew failed') });
      try {
        for (const row of await ledger.due(pipeline)) {
          if (beat.signal.aborted || this.stopped) break;
          const r = await this.deliver(beat.current(), row, AbortSignal.any([beat.signal, this.stopping.signal]));
          totals[r]++;
          this.totals[r]++;
        }
      } finally {
        await beat.stop();
        if (!beat.signal.aborted) await ledger.release(beat.current()).catch(() => undefined);
      }
    }
    this.rounds++;
    this.lastRound = { discovered, skippedTickets: scan.skipped.length, held, ...totals };
    this.lastError = undefined;
    return this.lastRound;
  }

  private async deliver(grant: LeaseGrant, row: DeliveryRow, signal: AbortSignal): Promise<'delivered' | 'failed' | 'dead' | 'lost'> {
    const { ledger, maxAttempts } = this.o;
    if (row.attempts >= maxAttempts) {
      // The last allowed attempt started but its sender stopped before recording an outcome.
      const ok = await ledger.recordFailure(grant, row.key, `${row.lastError ?? 'no outcome recorded'} (gave up after ${row.attempts} attempts)`, true);
      if (ok) this.log.warn({ key: row.key, url: row.url, attempts: row.attempts }, 'effects: dead letter');
      return ok ? 'dead' : 'lost';
    }
    const attempt = await ledger.beginAttempt(grant, row.key, backoffMs(this.o.backoff, row.attempts + 1));
    if (attempt === null) return 'lost';
    const outcome = await this.o.send({ url: row.url, key: row.key, payload: row.payload, attempt }, signal);
    if (outcome.ok) {
      const recorded = await ledger.recordDelivered(grant, row.key);
      if (recorded) this.log.info({ key: row.key, url: row.url, ticket: row.ticket, stage: row.stage, attempt }, 'effects: delivered');
      else this.log.warn({ key: row.key, url: row.url }, 'effects: delivered but the lease was lost before recording; a later holder repeats it with the same key');
      return recorded ? 'delivered' : 'lost';
    }
    const dead = attempt >= maxAttempts;
    const recorded = await ledger.recordFailure(grant, row.key, outcome.error, dead);
    if (!recorded) {
      this.log.warn({ key: row.key, url: row.url, attempt, error: outcome.error }, 'effects: attempt failed and the lease was lost before recording it');
      return 'lost';
    }
    this.log.warn({ key: row.key, url: row.url, attempt, error: outcome.error }, dead ? 'effects: dead letter' : 'effects: attempt failed; will retry');
    return dead ? 'dead' : 'failed';
  }
}
