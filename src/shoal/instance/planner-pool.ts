/**
 * Where requests are planned: a small, bounded pool of worker threads, so parsing, governing and
 * generating a long SQL text never holds the event loop (`/live`, `/health` and every other
 * request keep being answered meanwhile).
 *
 * Why threads and not planning in phases that yield: at the SQL limits one parser or generator
 * call alone (a single synchronous WebAssembly call into the SQL library) takes from a few hundred
 * milliseconds to over a second (`bench/shoal/plan-limits.ts`), and no phase boundary can split
 * it. A thread is the only way to keep the loop free, and the only way to stop a plan that
 * outlives its request: a plan still running when its request is aborted (deadline, client gone)
 * ends with its thread, which is replaced.
 *
 * Short texts (at most `inlineTokens` tokens, the measure `checkSqlLimits` already took) are
 * planned on the event loop: they cost a few milliseconds, a hop to a thread would add latency to
 * every point lookup, and they never queue behind long texts. Errors are the planner's own typed
 * errors on either path. Running from TypeScript sources (the unit tests) there is no compiled
 * thread script, and every text is planned on the event loop.
 */
import { Worker } from 'node:worker_threads';
import type { CatalogModel } from '../config/model.js';
import { ShoalError } from '../errors.js';
import type { GovernanceCatalog } from '../sql/index.js';
import { errorFrom, runPlanJob, type ErrorFields, type PlanJob, type PlanOutcome } from './plan-job.js';
import { abortError } from './request-deadline.js';

/** A catalog to plan against: its model crosses to the threads once per generation. */
export interface PlanCatalog {
  /** Increases with every catalog the instance builds. */
  readonly generation: number;
  readonly model: CatalogModel;
  /** The same catalog, built on the event loop (for texts planned there). */
  readonly governance: GovernanceCatalog;
}

/** A message to a planner thread; `model` is sent when the thread does not hold `generation` yet. */
export interface PlannerRequest {
  readonly id: number;
  readonly generation: number;
  readonly model?: CatalogModel;
  readonly job: PlanJob;
}

export type PlannerReply =
  | { readonly id: number; readonly ok: true; readonly outcome: PlanOutcome }
  | { readonly id: number; readonly ok: false; readonly error: ErrorFields };

/** The slice of the metrics registry the pool reports to. */
export interface PlannerMetrics {
  inc(name: string, labels?: Readonly<Record<string, string>>, by?: number, help?: string): void;
  set(name: string, value: number, labels?: Readonly<Record<string, string>>, help?: string): void;
}

export interface PlannerPoolOptions {
  /** Planner threads (`server.limits.planner_threads`); 0 plans every text on the event loop. */
  readonly threads: number;
  /** Texts with at most this many tokens are planned on the event loop (default 64). */
  readonly inlineTokens?: number;
  /** Requests that may wait for a thread; more are refused with PLANNER_BUSY (default 64 per thread). */
  readonly maxQueued?: number;
  /** The thread script (default: planner-worker.js beside this module). */
  readonly workerUrl?: URL;
  readonly metrics?: PlannerMetrics;
}

/** The default `inlineTokens`: a point lookup or a short join, planned in a few milliseconds. */
export const INLINE_PLAN_TOKENS = 64;

export const PLANNING_IN_FLIGHT = 'shoal_planning_in_flight';
export const PLANS_TOTAL = 'shoal_plans_total';

interface Pending {
  readonly id: number;
  readonly job: PlanJob;
  readonly catalog: PlanCatalog;
  readonly signal: AbortSignal;
  readonly resolve: (o: PlanOutcome) => void;
  readonly reject: (e: unknown) => void;
  readonly onAbort: () => void;
  done: boolean;
}

interface Thread {
  readonly worker: Worker;
  /** The catalog generation this thread holds. */
  generation: number | undefined;
  running: Pending | undefined;
}

const ownScript = (): URL | undefined => (import.meta.url.endsWith('.ts') ? undefined : new URL('./planner-worker.js', import.meta.url));

export class PlannerPool {
  private readonly threads: Thread[] = [];
  private readonly queue: Pending[] = [];
  private readonly script: URL | undefined;
  private readonly inlineTokens: number;
  private readonly maxQueued: number;
  private nextId = 1;
  private inFlight = 0;
  private closed = false;

  constructor(private readonly options: PlannerPoolOptions) {
    this.script = options.threads > 0 ? (options.workerUrl ?? ownScript()) : undefined;
    this.inlineTokens = options.inlineTokens ?? INLINE_PLAN_TOKENS;
    this.maxQueued = options.maxQueued ?? 64 * Math.max(1, options.threads);
    options.metrics?.set(PLANNING_IN_FLIGHT, 0, {}, 'requests being planned now (waiting for or running in a planner thread)');
    options.metrics?.inc(PLANS_TOTAL, { planner: 'thread' }, 0, 'requests planned, by where (a planner thread, or the event loop for short texts)');
    options.metrics?.inc(PLANS_TOTAL, { planner: 'event_loop' }, 0);
    // started now, so the first long request does not also pay for loading the SQL library
    if (this.script) for (let i = 0; i < options.threads; i++) this.threads.push(this.spawn());
  }

  /** Whether texts over the inline size are planned in threads (false: everything on the event loop). */
  get threaded(): boolean {
    return this.script !== undefined;
  }

  /**
   * Plan `job` against `catalog`. `tokens` is the text's token count (checkSqlLimits). Rejects
   * with the planner's typed error, with the signal's reason when it aborts first
   * (QUERY_TIMEOUT, QUERY_CANCELLED), or PLANNER_BUSY when too many requests already wait.
   */
  plan(job: PlanJob, catalog: PlanCatalog, tokens: number, signal: AbortSignal): Promise<PlanOutcome> {
    if (signal.aborted) return Promise.reject(abortError(signal));
    if (!this.script || tokens <= this.inlineTokens) {
      this.options.metrics?.inc(PLANS_TOTAL, { planner: 'event_loop' });
      try {
        return Promise.resolve(runPlanJob(job, catalog.governance));
      } catch (e) {
        return Promise.reject(e);
      }
    }
    if (this.closed) return Promise.reject(new ShoalError('NOT_READY', 'the instance is shutting down', { hint: 'retry on another instance' }));
    if (this.queue.length >= this.maxQueued) {
      return Promise.reject(
        new ShoalError('PLANNER_BUSY', `${this.queue.length} requests are already waiting to be planned on this instance`, {
          hint: 'retry shortly, or ask the operator about server.limits.planner_threads',
        }),
      );
    }
    return new Promise<PlanOutcome>((resolve, reject) => {
      const id = this.nextId++;
      const pending: Pending = {
        id,
        job,
        catalog,
        signal,
        resolve: (o) => this.settle(pending, () => resolve(o)),
        reject: (e) => this.settle(pending, () => reject(e)),
        onAbort: () => this.abort(pending),
        done: false,
      };
      signal.addEventListener('abort', pending.onAbort, { once: true });
      this.setInFlight(+1);
      this.queue.push(pending);
      this.dispatch();
    });
  }

  /** Stop every thread; waiting and running plans are refused. */
  async close(): Promise<void> {
    this.closed = true;
    const refused = new ShoalError('NOT_READY', 'the instance is shutting down', { hint: 'retry on another instance' });
    for (const p of this.queue.splice(0)) p.reject(refused);
    const threads = this.threads.splice(0);
    for (const t of threads) t.running?.reject(refused);
    await Promise.all(threads.map((t) => t.worker.terminate().catch(() => undefined)));
  }

  private spawn(): Thread {
    const worker = new Worker(this.script!);
    const thread: Thread = { worker, generation: undefined, running: undefined };
    // an idle thread must not keep the process alive; one that is planning must
    worker.unref();
    worker.on('message', (reply: PlannerReply) => {
      const p = thread.running;
      if (!p || p.id !== reply.id) return;
      thread.running = undefined;
      worker.unref();
      if (reply.ok) p.resolve(reply.outcome);
      else p.reject(errorFrom(reply.error));
      this.dispatch();
    });
    const lost = (why: string): void => {
      const i = this.threads.indexOf(thread);
      if (i < 0) return; // already replaced (aborted, or closed)
      const p = thread.running;
      thread.running = undefined;
      if (!this.closed) this.threads[i] = this.spawn();
      else this.threads.splice(i, 1);
      p?.reject(new Error(`planner thread ${why}`));
      this.dispatch();
    };
    worker.on('error', (e) => lost(`failed: ${e.message}`));
    worker.on('exit', (code) => lost(`exited with code ${code}`));
    return thread;
  }

  private dispatch(): void {
    for (const thread of this.threads) {
      if (this.queue.length === 0) return;
      if (thread.running) continue;
      const p = this.queue.shift()!;
      thread.running = p;
      const request: PlannerRequest = {
        id: p.id,
        generation: p.catalog.generation,
        ...(thread.generation === p.catalog.generation ? {} : { model: p.catalog.model }),
        job: p.job,
      };
      thread.generation = p.catalog.generation;
      thread.worker.ref();
      this.options.metrics?.inc(PLANS_TOTAL, { planner: 'thread' });
      thread.worker.postMessage(request);
    }
  }

  private abort(p: Pending): void {
    const queued = this.queue.indexOf(p);
    if (queued >= 0) this.queue.splice(queued, 1);
    const i = this.threads.findIndex((t) => t.running === p);
    if (i >= 0) {
      // the only way to stop a plan in progress: end its thread, and start a fresh one in its place
      const old = this.threads[i]!;
      old.running = undefined;
      this.threads[i] = this.spawn();
      void old.worker.terminate().catch(() => undefined);
    }
    p.reject(abortError(p.signal));
    this.dispatch();
  }

  /** A plan settles once: by its thread, its abort, a lost thread or the pool closing. */
  private settle(p: Pending, finish: () => void): void {
    if (p.done) return;
    p.done = true;
    p.signal.removeEventListener('abort', p.onAbort);
    this.setInFlight(-1);
    finish();
  }

  private setInFlight(delta: number): void {
    this.inFlight += delta;
    this.options.metrics?.set(PLANNING_IN_FLIGHT, this.inFlight);
  }
}
