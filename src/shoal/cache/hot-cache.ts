/**
 * The hot-table cache of one instance (law S5: an optimization, never a change of answer).
 *
 * Raw rows of small tables are kept in a backend (Redis, shared; or in process) and, per
 * instance, as an engine-resident table (engine/resident-tables.ts) that a query on the engine
 * route binds in place of the live relation. Governance is untouched: the governed subquery that
 * wraps the live relation wraps the resident copy the same way, so RLS, masking and visibility
 * apply to it exactly as to live rows.
 *
 * Each copy is stamped with its table's change signal, read before its rows (hot-signal.ts), and
 * revalidated: a copy of a table with a signal is served only while the stamp was found to match
 * the source at most `revalidate_interval` ago; a read past half that starts a revalidation, a
 * changed signal drops the copy and reloads it. Every binding says the copy's age.
 *
 * Anything short of a fresh, validated, healthy entry means "serve live": a table not loaded yet,
 * one over `max_rows` or `max_bytes`, a failed load or probe, a backend outage, an entry older than
 * `refresh_interval`, a stamp not checked within `revalidate_interval`. None of these is an error
 * to a client.
 *
 * Copies are never rewritten in place: a reload creates a new resident table (named by table key,
 * generation and load) and swaps the binding to it; the superseded one is dropped once the last
 * query bound to it has finished (bindings are leases).
 */
import { randomBytes } from 'node:crypto';
import type { HotTablesConfig } from '../config/model.js';
import type { Cell, ColumnInfo } from '../engine/engine.js';
import { type Timer, systemTimer } from '../registry/timer.js';
import type { HotBackend, HotInvalidation } from './hot-backend.js';
import type { HotCandidate } from './hot-selection.js';
import { hotRelationBody, hotRelationName, isHotCacheableType, uncacheableCell } from './hot-values.js';

/** What loading needs from the instance: the engine (types as the live path sees them), a row count, the signal. */
export interface HotLoader {
  /** The table's row count (every table is sized before it is loaded). */
  count(c: HotCandidate, signal: AbortSignal): Promise<number>;
  /** Up to `limit` rows of the live relation, with the engine's column names and types. */
  load(c: HotCandidate, limit: number, signal: AbortSignal): Promise<{ readonly columns: readonly ColumnInfo[]; readonly rows: readonly (readonly Cell[])[] }>;
  /** The table's current change signal (readHotSignal over its spec); null when it has none. */
  probe(c: HotCandidate, signal: AbortSignal): Promise<string | null>;
  /** Create an engine-resident table `name` holding the rows of `body`; its engine name parts. */
  install(name: string, body: string): Promise<readonly string[]>;
  /** Drop a resident table made by `install`. */
  drop(name: string): Promise<void>;
}

/** The slice of a metrics registry the cache reports to (MetricsRegistry satisfies it). */
export interface CacheMetricsSink {
  inc(name: string, labels?: Readonly<Record<string, string>>, by?: number, help?: string): void;
  set(name: string, value: number, labels?: Readonly<Record<string, string>>, help?: string): void;
}

export type HotState = 'cached' | 'loading' | 'not_loaded' | 'over_rows' | 'over_bytes' | 'empty' | 'unsupported' | 'failed';

/** One table's status, as /admin/cache reports it. */
export interface HotStatus {
  readonly table: string;
  readonly reason: HotCandidate['reason'];
  readonly state: HotState;
  /** Why the table is not cached (over a bound, unsupported type, the failure). */
  readonly detail?: string;
  readonly rows?: number;
  /** Size of the stored JSON blob (what `max_bytes` bounds). */
  readonly bytes?: number;
  /** The backend generation the cached rows were loaded under. */
  readonly generation?: string;
  /** Epoch ms when the cached rows were read from the source. */
  readonly loadedAt?: number;
  /** Epoch ms the copy was last known to match its source (its stamp checked, or its load). */
  readonly validatedAt?: number;
  /** The change signal the copy is stamped with (null: the table has none). */
  readonly stamp?: string | null;
  /** The engine-resident table the copy lives in. */
  readonly resident?: string;
  /** How many times rows were (re)loaded into this instance. */
  readonly loads: number;
}

/**
 * The resident table a hot table is bound to for one query: a lease, released when the query is
 * over (a superseded copy is dropped only after its last lease).
 */
export interface HotBinding {
  readonly key: string;
  /** Engine name parts of the resident table. */
  readonly relation: readonly string[];
  /** Seconds since the copy was last known to match its source (see HotStatus.validatedAt). */
  readonly ageSeconds: number;
  /** End the lease (idempotent). */
  release(): void;
}

export interface HotCacheOptions {
  readonly backend: HotBackend;
  readonly loader: HotLoader;
  readonly bounds: HotTablesConfig;
  /** Epoch milliseconds (default Date.now). */
  readonly clock?: () => number;
  /** Schedules the refresh loop (default the system timer). */
  readonly timer?: Timer;
  readonly metrics?: CacheMetricsSink;
  /** Background failures (a load that failed); they never reach a query. */
  readonly onError?: (e: unknown) => void;
}

interface Entry {
  /** The resident table's name and engine name parts. */
  readonly table: string;
  readonly relation: readonly string[];
  readonly generation: string;
  readonly loadedAt: number;
  readonly stamp: string | null;
  /** Clock ms the stamp was last found current (at the start of that probe). */
  validatedAt: number;
  readonly rows: number;
  readonly bytes: number;
  /** Queries bound to this copy now. */
  leases: number;
  /** Replaced or invalidated: dropped once `leases` is 0. */
  retired: boolean;
}

interface Slot {
  candidate: HotCandidate;
  entry?: Entry;
  state: HotState;
  detail?: string;
  /** Bumped by every invalidation: a load that started under an older epoch is discarded. */
  epoch: number;
  loads: number;
  inflight?: Promise<void>;
  /** Set once an automatic candidate has been read by a query. */
  wanted: boolean;
  /** When the last load failed (clock ms): a read retries it at most once per FAILED_RETRY_MS. */
  failedAt?: number;
  /** A revalidation of the entry's stamp in flight. */
  probing?: Promise<void>;
}

/** A failed load (backend blip, source hiccup) is retried by the next read after this long. */
const FAILED_RETRY_MS = 1000;

const TIER = { tier: 'hot' } as const;

/** The JSON stored in the backend: raw rows as the engine returned them, and when they were read. */
interface StoredRows {
  /** The table and source definition the rows were read under (HotCandidate.fingerprint). */
  readonly fingerprint: string;
  readonly loadedAt: number;
  /** The change signal read before the rows (null: none). A reader whose probe differs reloads. */
  readonly stamp: string | null;
  readonly columns: readonly ColumnInfo[];
  readonly rows: readonly (readonly Cell[])[];
}

export class HotCache {
  private readonly slots = new Map<string, Slot>();
  private readonly clock: () => number;
  private readonly timer: Timer;
  private handle: unknown;
  private checkHandle: unknown;
  private closed = false;
  /** Aborted on close: loads in flight stop instead of delaying shutdown. */
  private readonly abort = new AbortController();
  /** Distinguishes the resident tables of successive loads of one table and generation. */
  private sequence = 0;
  /** And those of two caches over one engine (tests; a restarted cache before the old one's drops ran). */
  private readonly instanceTag = randomBytes(3).toString('hex');

  constructor(private readonly options: HotCacheOptions) {
    this.clock = options.clock ?? Date.now;
    this.timer = options.timer ?? systemTimer;
    options.backend.subscribe((inv) => this.onInvalidation(inv));
  }

  get backendKind(): HotBackend['kind'] {
    return this.options.backend.kind;
  }

  /** Whether cached rows may be served now (false while a shared backend is unreachable). */
  healthy(): boolean {
    return this.options.backend.healthy();
  }

  private get intervalMs(): number {
    return this.options.bounds.refresh_interval * 1000;
  }

  private get revalidateMs(): number {
    return (this.options.bounds.revalidate_interval ?? 1) * 1000;
  }

  /**
   * Make the candidate set exactly `candidates` (after every catalog rebuild). A table whose
   * definition changed is dropped and reloaded; `hot: true` tables are loaded now (awaited).
   */
  async setCandidates(candidates: readonly HotCandidate[]): Promise<void> {
    const next = new Map(candidates.map((c) => [c.key, c]));
    for (const [key, slot] of this.slots) {
      const c = next.get(key);
      if (!c || JSON.stringify(c) !== JSON.stringify(slot.candidate)) {
        this.slots.delete(key);
        slot.epoch++;
        this.retire(slot);
      }
    }
    const loads: Promise<void>[] = [];
    for (const c of candidates) {
      if (this.slots.has(c.key)) continue;
      const slot: Slot = { candidate: c, state: 'not_loaded', epoch: 0, loads: 0, wanted: c.reason === 'explicit' };
      this.slots.set(c.key, slot);
      if (slot.wanted) loads.push(this.load(slot));
    }
    this.reportBytes();
    await Promise.all(loads);
  }

  /** Start the refresh loop: every half interval, reload wanted tables whose rows are half an interval old. */
  start(): void {
    if (this.closed || this.handle !== undefined) return;
    const tick = (): void => {
      this.handle = this.timer.setTimeout(() => {
        void this.refreshDue().finally(() => {
          if (!this.closed) tick();
        });
      }, Math.max(500, this.intervalMs / 2));
    };
    tick();
    // keep signalled copies validated between reads, so a query after a quiet spell is still served
    const check = (): void => {
      this.checkHandle = this.timer.setTimeout(() => {
        this.revalidateDue();
        if (!this.closed) check();
      }, Math.max(100, this.revalidateMs / 2));
    };
    check();
  }

  /** Start a revalidation of every cached copy of a table with a signal whose check is half a bound old. */
  revalidateDue(): void {
    const now = this.clock();
    for (const s of this.slots.values()) {
      if (s.entry && s.candidate.signal.kind !== 'none' && now - s.entry.validatedAt >= this.revalidateMs / 2) this.revalidate(s);
    }
  }

  /** Reload every wanted table whose entry is missing or at least half an interval old. */
  async refreshDue(): Promise<void> {
    const now = this.clock();
    const due = [...this.slots.values()].filter((s) => s.wanted && (!s.entry || now - s.entry.loadedAt >= this.intervalMs / 2));
    await Promise.all(due.map((s) => this.load(s)));
  }

  /**
   * A lease on every copy servable now (as `binding` decides), with no other side effect: what a
   * query planned off the event loop may bind (the planner thread cannot call back into the
   * cache). Release the ones the plan did not bind; the instance calls `touch` afterwards for each
   * table the query read, which schedules loads and revalidations.
   */
  freshBindings(): ReadonlyMap<string, HotBinding> {
    const out = new Map<string, HotBinding>();
    if (!this.options.backend.healthy()) return out;
    const now = this.clock();
    for (const [key, slot] of this.slots) {
      if (this.servable(slot, now)) out.set(key, this.lease(slot, slot.entry!, now));
    }
    return out;
  }

  /** Whether the slot's copy may be served at `now`: fresh, and validated within the bound when the table has a signal. */
  private servable(slot: Slot, now: number): boolean {
    const entry = slot.entry;
    if (entry === undefined || now - entry.loadedAt >= this.intervalMs) return false;
    return slot.candidate.signal.kind === 'none' || now - entry.validatedAt < this.revalidateMs;
  }

  /** `binding`'s side effects without a lease: a table a query read (schedules its load or revalidation). */
  touch(key: string): void {
    this.binding(key)?.release();
  }

  /**
   * The binding for one table read by a query on the engine route, or undefined to read it live:
   * only a fresh entry, validated within `revalidate_interval` when the table has a signal, on a
   * healthy backend is served. An automatic candidate read for the first time is scheduled for
   * loading (the query itself runs live). A binding is a lease: release it when the query is over.
   */
  binding(key: string): HotBinding | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    const healthy = this.options.backend.healthy();
    const now = this.clock();
    const entry = slot.entry;
    const fresh = entry !== undefined && now - entry.loadedAt < this.intervalMs;
    const signalled = slot.candidate.signal.kind !== 'none';
    const checkedAgo = entry === undefined ? Infinity : now - entry.validatedAt;
    // revalidate ahead of the bound while the copy is read, so a busy table keeps being served
    if (healthy && fresh && signalled && checkedAgo >= this.revalidateMs / 2) this.revalidate(slot);
    if (healthy && fresh && (!signalled || checkedAgo < this.revalidateMs)) return this.lease(slot, entry!, now);
    if (!slot.wanted) {
      slot.wanted = true;
      void this.load(slot);
    } else if (healthy && (!fresh || entry === undefined) && slot.inflight === undefined && (slot.state === 'cached' || slot.state === 'not_loaded')) {
      void this.load(slot); // stale or dropped: the refresh loop has not caught up yet
    } else if (healthy && slot.state === 'failed' && slot.inflight === undefined && this.clock() - (slot.failedAt ?? 0) >= FAILED_RETRY_MS) {
      // a load that failed (say, while the backend reconnected) is not left to the refresh loop,
      // whose tick can be minutes away
      void this.load(slot);
    }
    return undefined;
  }

  /** Count what a query did with its hot candidates: `inlined` were served from the cache. */
  account(tables: readonly string[], inlined: ReadonlySet<string>): void {
    const m = this.options.metrics;
    if (!m) return;
    const healthy = this.options.backend.healthy();
    for (const key of new Set(tables)) {
      const slot = this.slots.get(key);
      if (!slot) continue;
      // an automatic candidate found too big, empty or of an uncacheable type is simply not a hot table
      if (slot.candidate.reason !== 'explicit' && ['over_rows', 'over_bytes', 'empty', 'unsupported'].includes(slot.state)) continue;
      if (inlined.has(key)) m.inc('shoal_cache_hits_total', TIER);
      else if (!healthy || ['over_rows', 'over_bytes', 'failed', 'unsupported'].includes(slot.state)) m.inc('shoal_cache_fallbacks_total', TIER);
      else m.inc('shoal_cache_misses_total', TIER);
    }
  }

  /** Invalidate one table (by key) or every table, on every instance sharing the backend. */
  async invalidate(table?: string): Promise<{ readonly propagated: boolean }> {
    try {
      await this.options.backend.invalidate(table === undefined ? 'all' : [table.toLowerCase()]);
      return { propagated: true };
    } catch (e) {
      // the backend is unreachable: peers stop serving on their own (unhealthy backend); this one now
      this.options.onError?.(e);
      this.dropLocal(table);
      return { propagated: false };
    }
  }

  /** Invalidate locally only (when the backend is unreachable, at least this instance stops serving). */
  dropLocal(table?: string): void {
    this.onInvalidation(table === undefined ? { all: true } : { table: table.toLowerCase() });
  }

  status(): HotStatus[] {
    return [...this.slots.values()].map((s) => ({
      table: s.candidate.key,
      reason: s.candidate.reason,
      state: s.state,
      ...(s.detail !== undefined ? { detail: s.detail } : {}),
      ...(s.entry
        ? { rows: s.entry.rows, bytes: s.entry.bytes, generation: s.entry.generation, loadedAt: s.entry.loadedAt, validatedAt: s.entry.validatedAt, stamp: s.entry.stamp, resident: s.entry.table }
        : {}),
      loads: s.loads,
    }));
  }

  /** A lease on the slot's current copy. */
  private lease(slot: Slot, entry: Entry, now: number): HotBinding {
    entry.leases++;
    let released = false;
    const signalled = slot.candidate.signal.kind !== 'none';
    return {
      key: slot.candidate.key,
      relation: entry.relation,
      ageSeconds: Math.max(0, now - (signalled ? entry.validatedAt : entry.loadedAt)) / 1000,
      release: () => {
        if (released) return;
        released = true;
        entry.leases--;
        if (entry.retired && entry.leases === 0) this.dropResident(entry);
      },
    };
  }

  /** Take the slot's copy out of service; its resident table goes once no query holds it. */
  private retire(slot: Slot): void {
    const e = slot.entry;
    slot.entry = undefined;
    if (!e || e.retired) return;
    e.retired = true;
    if (e.leases === 0) this.dropResident(e);
  }

  private dropResident(e: Entry): void {
    if (this.closed) return; // the engine drops everything with itself
    this.options.loader.drop(e.table).catch((err: unknown) => this.options.onError?.(err));
  }

  /**
   * Check the copy's stamp against the source now (single flight). Unchanged: the copy is valid
   * as of the probe's start. Changed: the copy is dropped and reloaded. A failed probe leaves the
   * copy to age out of its validation (served live meanwhile).
   */
  private revalidate(slot: Slot): void {
    if (slot.probing || slot.inflight || this.closed) return;
    const entry = slot.entry;
    if (!entry) return;
    const epoch = slot.epoch;
    const started = this.clock();
    slot.probing = this.options.loader
      .probe(slot.candidate, this.abort.signal)
      .then((current) => {
        if (slot.entry !== entry || slot.epoch !== epoch || this.closed) return;
        if (current === entry.stamp) {
          entry.validatedAt = Math.max(entry.validatedAt, started);
          return;
        }
        // the source changed since the copy was read: never serve it again
        slot.epoch++;
        this.retire(slot);
        slot.state = 'not_loaded';
        void this.load(slot, true);
      })
      .catch((e: unknown) => {
        if (!this.closed) this.options.onError?.(e);
      })
      .finally(() => {
        slot.probing = undefined;
      });
  }

  /** Wait for every load and revalidation in flight (tests, shutdown). */
  async settled(): Promise<void> {
    for (;;) {
      const pending = [...this.slots.values()].flatMap((s) => [s.inflight, s.probing]).filter((p): p is Promise<void> => p !== undefined);
      if (pending.length === 0) return;
      await Promise.all(pending);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.handle !== undefined) this.timer.clearTimeout(this.handle);
    if (this.checkHandle !== undefined) this.timer.clearTimeout(this.checkHandle);
    this.abort.abort();
    await this.settled().catch(() => undefined);
    await this.options.backend.close();
  }

  private onInvalidation(inv: HotInvalidation): void {
    const slots = 'all' in inv ? [...this.slots.values()] : [this.slots.get(inv.table)].filter((s): s is Slot => s !== undefined);
    for (const s of slots) {
      s.epoch++;
      this.retire(s);
      if (s.state === 'cached') s.state = 'not_loaded';
      if (s.wanted && !this.closed) void this.load(s, true);
    }
    this.reportBytes();
  }

  /** Load one table (single flight; a load requested while one runs runs again after it). */
  private load(slot: Slot, again = false): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (slot.inflight) {
      if (!again) return slot.inflight;
      const after = slot.inflight.then(() => this.load(slot));
      return after;
    }
    const run = this.loadOnce(slot)
      .catch((e: unknown) => {
        if (this.closed) return; // aborted by close
        slot.state = 'failed';
        slot.failedAt = this.clock();
        slot.detail = e instanceof Error ? e.message : String(e);
        this.retire(slot);
        this.options.onError?.(e);
      })
      .finally(() => {
        slot.inflight = undefined;
        this.reportBytes();
      });
    slot.inflight = run;
    return run;
  }

  private async loadOnce(slot: Slot): Promise<void> {
    const { backend, loader, bounds } = this.options;
    const c = slot.candidate;
    const epoch = slot.epoch;
    const outcome = (state: HotState, detail?: string): void => {
      if (slot.epoch !== epoch) return;
      slot.state = state;
      this.retire(slot);
      if (detail === undefined) delete slot.detail;
      else slot.detail = detail;
    };
    if (slot.state !== 'cached') slot.state = 'loading';
    // the stamp and the generation are read BEFORE the rows: rows are never older than either
    const validatedAt = this.clock();
    const stamp = await loader.probe(c, this.abort.signal);
    const generation = await backend.generation(c.key);
    let stored: StoredRows;
    let bytes: number;
    const blob = await backend.read(c.key);
    const shared = blob && blob.generation === generation ? (JSON.parse(blob.json) as StoredRows) : undefined;
    // a blob of another definition of the table (a registry mutation), or stamped with a signal
    // the source no longer shows (it changed since a peer read it), is never served
    if (shared && shared.fingerprint === c.fingerprint && (shared.stamp ?? null) === stamp) {
      stored = shared;
      bytes = Buffer.byteLength(blob!.json, 'utf8');
    } else {
      // sized first (a count on the source itself is cheap), so an oversized table is never fetched
      const n = await loader.count(c, this.abort.signal);
      if (n === 0 && c.reason === 'auto') return outcome('empty', 'no rows');
      if (n > c.maxRows) return outcome('over_rows', `${n} rows > ${c.maxRows}`);
      const loadedAt = this.clock();
      const live = await loader.load(c, c.maxRows + 1, this.abort.signal);
      if (live.rows.length > c.maxRows) return outcome('over_rows', `more than ${c.maxRows} rows`);
      const why = unsupported(live.columns, live.rows);
      if (why !== undefined) return outcome('unsupported', why);
      const json = JSON.stringify({ fingerprint: c.fingerprint, loadedAt, stamp, columns: live.columns, rows: live.rows } satisfies StoredRows);
      bytes = Buffer.byteLength(json, 'utf8');
      if (bytes > bounds.max_bytes) return outcome('over_bytes', `${bytes} bytes > ${bounds.max_bytes}`);
      await backend.write(c.key, { generation, json }, bounds.refresh_interval);
      stored = { fingerprint: c.fingerprint, loadedAt, stamp, columns: live.columns, rows: live.rows };
    }
    if (slot.epoch !== epoch || this.closed) return; // invalidated meanwhile: these rows may be stale
    // the rows become a table the engine keeps (the body is parsed once per load, not per query)
    const table = `${hotRelationName(c.key)}_g${generation.replace(/[^0-9A-Za-z]/g, '')}_${this.instanceTag}${++this.sequence}`;
    const relation = await loader.install(table, hotRelationBody(stored.columns, stored.rows));
    if (slot.epoch !== epoch || this.closed) {
      if (!this.closed) await loader.drop(table).catch(() => undefined);
      return;
    }
    this.retire(slot);
    slot.loads++;
    slot.state = 'cached';
    delete slot.detail;
    slot.entry = {
      table,
      relation,
      generation,
      loadedAt: stored.loadedAt,
      stamp,
      validatedAt,
      rows: stored.rows.length,
      bytes,
      leases: 0,
      retired: false,
    };
  }

  private reportBytes(): void {
    let total = 0;
    for (const s of this.slots.values()) total += s.entry?.bytes ?? 0;
    this.options.metrics?.set('shoal_cache_bytes', total, TIER);
  }
}

function unsupported(columns: readonly ColumnInfo[], rows: readonly (readonly Cell[])[]): string | undefined {
  for (const c of columns) if (!isHotCacheableType(c.type)) return `column ${c.name} has type ${c.type}`;
  for (const r of rows) {
    for (let i = 0; i < columns.length; i++) {
      const why = uncacheableCell(r[i] ?? null, columns[i]!.type);
      if (why !== undefined) return `column ${columns[i]!.name} holds ${why}`;
    }
  }
  return undefined;
}
