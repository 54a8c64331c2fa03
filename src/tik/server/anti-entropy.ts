import { isCodedError } from '../../core/errors.js';
import type { EventStore } from '../store/store.js';
import { httpTransport } from '../sync/http-transport.js';
import { SYNC_LIMITS, type SyncLimits } from '../sync/limits.js';
import type { ReceiveFilter } from '../sync/receive-bundle.js';
import { syncWith, type SyncReport } from '../sync/sync-session.js';
import type { SyncTransport } from '../sync/transport.js';
import { toleratePushRefusal } from '../sync/push-refusal.js';
import { effectiveRegister } from '../roles/effective-register.js';
import { compareRoles, peerRolesDigest } from '../roles/peer-roles.js';
import { nextPeerHealth, pushRetryMs, REFUSED_SHOWN, type PeerHealth } from './peer-health.js';
import { PeriodicLoop } from './periodic-loop.js';

export interface AntiEntropyLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface AntiEntropyOptions {
  /** Milliseconds since the epoch (tests inject one). Default `Date.now`. */
  readonly now?: () => number;
  /** Peers synced at once. Default 4. */
  readonly concurrency?: number;
  /** Bounds per session (`SYNC_LIMITS` by default); `sessionTimeoutMs` aborts a whole session. */
  readonly limits?: Partial<SyncLimits>;
  /** Sent with the `/health` request that reads a peer's roles digest (a shard header). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The replica's admission policy for pulled bundles (`--admit signed`); refusals land on the peer's status. */
  readonly filter?: ReceiveFilter;
}

/**
 * Periodic anti-entropy: every `intervalMs`, sync (pull and push) with every peer, a few at a
 * time, each session bounded in rounds, bytes and time. A peer that fails is backed off; one that
 * breaks a limit or sends bad data is quarantined (skipped for a while that doubles on every
 * repeat), so a hostile peer costs a bounded amount per round and never starves honest ones. A
 * peer whose policy refuses our pushes is neither: the sync pulls, and the refusal is reported
 * (`pushRefused`; after a 401 the peer is synced pull-only for `pushRetryMs`).
 * Rounds never overlap; `stop` aborts the sessions in flight. Peer health is kept in memory only:
 * a restarted replica simply reconciles again.
 */
export class AntiEntropy {
  private readonly loop: PeriodicLoop;
  private readonly stopping = new AbortController();
  private readonly health = new Map<string, PeerHealth>();
  private readonly now: () => number;
  /** Completed rounds (each round visits every peer that is not backed off). */
  rounds = 0;

  constructor(
    private readonly store: EventStore,
    private readonly peers: readonly string[],
    private readonly intervalMs: number,
    private readonly log: AntiEntropyLog,
    private readonly transport: (url: string, signal: AbortSignal) => SyncTransport = (url, signal) => httpTransport(url, { signal }),
    private readonly options: AntiEntropyOptions = {},
  ) {
    this.loop = new PeriodicLoop(() => this.round(), intervalMs);
    this.now = options.now ?? Date.now;
    for (const p of peers) this.health.set(p, { url: p, state: 'new', failures: 0 });
  }

  start(): void {
    if (this.peers.length > 0) this.loop.start();
  }

  /** Every peer's health, in the order the peers were given. */
  peerHealth(): readonly PeerHealth[] {
    return this.peers.map((p) => this.health.get(p)!);
  }

  /** One pass over every peer; returns each peer's report or error message. */
  async round(): Promise<Record<string, SyncReport | string>> {
    const out: Record<string, SyncReport | string> = {};
    const queue = [...this.peers];
    const worker = async (): Promise<void> => {
      for (let peer = queue.shift(); peer !== undefined; peer = queue.shift()) {
        if (this.loop.isStopped || this.stopping.signal.aborted) return;
        out[peer] = await this.syncPeer(peer);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency ?? 4, queue.length) }, worker));
    this.rounds++;
    return out;
  }

  private async syncPeer(peer: string): Promise<SyncReport | string> {
    const h = this.health.get(peer)!;
    if (h.retryAt !== undefined && Date.parse(h.retryAt) > this.now()) return `${h.state} until ${h.retryAt}`;
    const limits = { ...SYNC_LIMITS, ...this.options.limits };
    const signal = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(limits.sessionTimeoutMs)]);
    // A peer that refused our credential is synced pull-only until its retry time: it still serves us.
    const pullOnly = h.pushRefused?.retryAt !== undefined && Date.parse(h.pushRefused.retryAt) > this.now();
    try {
      const t = toleratePushRefusal(this.transport(peer, signal));
      const r = await syncWith(this.store, t.transport, { signal, limits, direction: pullOnly ? 'pull' : 'both', ...(this.options.filter ? { filter: this.options.filter } : {}) });
      const pr = t.refusal();
      const nowMs = this.now();
      const pushRefused: PeerHealth['pushRefused'] = pr
        ? { code: pr.code, status: pr.status, message: pr.message, at: new Date(nowMs).toISOString(), ...(pr.status === 401 ? { retryAt: new Date(nowMs + pushRetryMs(this.intervalMs)).toISOString() } : {}) }
        : pullOnly || r.have === 0
          ? h.pushRefused // no push was tried: what we knew stands
          : undefined;
      if (pr) this.log.warn({ peer, code: pr.code, status: pr.status, refusedPushes: pr.refused, pullOnlyUntil: pushRefused?.retryAt }, 'anti-entropy: peer refused our push (its authorship policy); pulled only');
      // Same events derive the same stages only under the same roles register: compare after each sync.
      const cmp = compareRoles(peer, await effectiveRegister(this.store), await peerRolesDigest(peer, { signal, ...(this.options.headers ? { headers: this.options.headers } : {}) }));
      if (cmp.verdict === 'differs' && h.roles?.verdict !== 'differs') this.log.warn({ peer, local: cmp.local, peerRoles: cmp.peer }, 'anti-entropy: peer derives with a different roles register');
      const refused = r.refused ?? [];
      this.health.set(peer, {
        ...nextPeerHealth(h, this.now(), this.intervalMs),
        roles: { verdict: cmp.verdict, peer: cmp.peer ?? null },
        ...(pushRefused ? { pushRefused } : {}),
        ...(refused.length > 0 ? { refused: refused.slice(0, REFUSED_SHOWN) } : {}),
      });
      if (refused.length > 0) this.log.warn({ peer, refused: refused.length, first: refused[0] }, 'anti-entropy: pulled events refused by this replica\'s admission policy (not stored)');
      if (r.pulled + r.pushed > 0) this.log.info({ peer, rounds: r.rounds, pulled: r.pulled, pushed: r.pushed }, 'anti-entropy synced');
      return r;
    } catch (e) {
      let error = isCodedError(e) ? { code: e.code, message: e.message } : { code: 'sync/failed', message: (e as Error).message };
      if (this.stopping.signal.aborted) return error.message;
      // Aborted without a stop: the session ran out of time, which an honest peer does not do.
      if (signal.aborted) error = { code: 'sync/peer-limit', message: `the sync did not finish within ${limits.sessionTimeoutMs} ms` };
      const next = nextPeerHealth(h, this.now(), this.intervalMs, error);
      this.health.set(peer, next);
      this.log.warn({ peer, error: error.message, code: error.code, state: next.state, retryAt: next.retryAt }, next.state === 'quarantined' ? 'anti-entropy: peer quarantined' : 'anti-entropy: peer sync failed');
      return error.message;
    }
  }

  /** Stops the loop and aborts every session in flight. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop.stop();
  }
}
