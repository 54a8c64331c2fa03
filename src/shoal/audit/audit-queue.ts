/**
 * The bounded, asynchronous path from a finished request to the audit store. `record` never
 * waits and never throws: it appends to an in-memory queue of at most `capacity` records, and one
 * background writer drains it in batches. While the store is slow or down the queue fills; once
 * full, new records are dropped and counted (`shoal_audit_dropped_total` on /metrics), so a bad
 * registry costs audit completeness — visibly — but never a query's latency or the process's memory.
 */
import type { AuditRecord } from './audit-record.js';
import type { AuditStore } from './audit-store.js';

/**
 * The slice of a metrics registry the queue reports to. The server's MetricsRegistry satisfies
 * it; declared here because audit sits below the server layer and may not import it.
 */
export interface AuditMetricsSink {
  declare(name: string, help: string): void;
  inc(name: string, labels?: Readonly<Record<string, string>>, by?: number): void;
  set(name: string, value: number, labels?: Readonly<Record<string, string>>, help?: string): void;
}

export interface AuditQueueOptions {
  /** Records held while the store lags (default 10 000). */
  readonly capacity?: number;
  /** Records written per store call (default 500). */
  readonly batchSize?: number;
  readonly metrics?: AuditMetricsSink;
  /** A failed write (the batch stays queued and is retried). */
  readonly onError?: (e: unknown) => void;
  /** First retry delay after a failed write, doubled up to 30 s (default 1000 ms). */
  readonly retryMs?: number;
}

export const AUDIT_METRICS = {
  written: 'shoal_audit_written_total',
  dropped: 'shoal_audit_dropped_total',
  failures: 'shoal_audit_write_failures_total',
  depth: 'shoal_audit_queue_depth',
} as const;

const MAX_RETRY_MS = 30_000;

export class AuditQueue {
  private readonly queue: AuditRecord[] = [];
  private writing: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs: number;
  private closed = false;
  private droppedCount = 0;
  /** Records taken from the queue by the write in flight: they count against the capacity too. */
  private inFlight = 0;
  readonly capacity: number;
  private readonly batchSize: number;

  constructor(
    private readonly store: AuditStore,
    private readonly options: AuditQueueOptions = {},
  ) {
    this.capacity = options.capacity ?? 10_000;
    this.batchSize = options.batchSize ?? 500;
    this.retryMs = options.retryMs ?? 1000;
    const m = options.metrics;
    m?.declare(AUDIT_METRICS.written, 'audit records written to the audit log');
    m?.declare(AUDIT_METRICS.dropped, 'audit records dropped because the audit queue was full (the registry was slow or down)');
    m?.declare(AUDIT_METRICS.failures, 'failed audit log writes (the batch is kept and retried)');
    m?.set(AUDIT_METRICS.depth, 0, {}, 'audit records waiting to be written');
  }

  /** Records held and not yet written, the batch in flight included; never more than `capacity`. */
  get depth(): number {
    return this.queue.length + this.inFlight;
  }

  /** Records dropped since start because the queue was full. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Queue one record; never blocks, never throws. */
  record(r: AuditRecord): void {
    if (this.closed || this.depth >= this.capacity) {
      this.droppedCount++;
      this.options.metrics?.inc(AUDIT_METRICS.dropped);
      return;
    }
    this.queue.push(r);
    this.gauge();
    if (!this.retryTimer) void this.drain();
  }

  /** Write what is queued now (waits for a write in flight); rejects when the store fails. */
  async flush(): Promise<void> {
    for (;;) {
      if (this.writing) await this.writing.catch(() => undefined);
      else if (this.queue.length > 0) await this.drain(true);
      else return;
    }
  }

  /** Stop accepting records and try once to write what is left. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.flush().catch(() => undefined);
  }

  /** One writer at a time; a failed batch goes back to the head of the queue and is retried later. */
  private drain(rethrow = false): Promise<void> {
    if (this.writing) return rethrow ? this.writing : this.writing.catch(() => undefined);
    const run = async (): Promise<void> => {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.batchSize);
        this.inFlight = batch.length;
        try {
          await this.store.append(batch);
        } catch (e) {
          this.queue.unshift(...batch);
          this.inFlight = 0;
          this.gauge();
          this.options.metrics?.inc(AUDIT_METRICS.failures);
          this.options.onError?.(e);
          this.scheduleRetry();
          throw e;
        }
        this.inFlight = 0;
        this.gauge();
        this.options.metrics?.inc(AUDIT_METRICS.written, {}, batch.length);
        this.retryMs = this.options.retryMs ?? 1000;
      }
    };
    const p = run().finally(() => {
      this.writing = undefined;
    });
    this.writing = p;
    return rethrow ? p : p.catch(() => undefined);
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.drain();
    }, delay);
    this.retryTimer.unref();
  }

  private gauge(): void {
    this.options.metrics?.set(AUDIT_METRICS.depth, this.depth);
  }
}
