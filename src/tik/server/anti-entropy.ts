import type { EventStore } from '../store/store.js';
import { httpTransport } from '../sync/http-transport.js';
import { syncWith, type SyncReport } from '../sync/sync-session.js';
import type { SyncTransport } from '../sync/transport.js';
import { PeriodicLoop } from './periodic-loop.js';

export interface AntiEntropyLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Periodic anti-entropy: every `intervalMs`, sync (pull and push) with each peer in turn. Rounds
 * never overlap; a failed peer is logged and retried next round. No state is kept between rounds:
 * a restarted replica simply reconciles again.
 */
export class AntiEntropy {
  private readonly loop: PeriodicLoop;
  /** Completed rounds (each round visits every peer). */
  rounds = 0;

  constructor(
    private readonly store: EventStore,
    private readonly peers: readonly string[],
    intervalMs: number,
    private readonly log: AntiEntropyLog,
    private readonly transport: (url: string) => SyncTransport = (url) => httpTransport(url),
  ) {
    this.loop = new PeriodicLoop(() => this.round(), intervalMs);
  }

  start(): void {
    if (this.peers.length > 0) this.loop.start();
  }

  /** One pass over every peer; returns each peer's report or error message. */
  async round(): Promise<Record<string, SyncReport | string>> {
    const out: Record<string, SyncReport | string> = {};
    for (const peer of this.peers) {
      if (this.loop.isStopped) break;
      try {
        const r = await syncWith(this.store, this.transport(peer));
        out[peer] = r;
        if (r.pulled + r.pushed > 0) this.log.info({ peer, rounds: r.rounds, pulled: r.pulled, pushed: r.pushed }, 'anti-entropy synced');
      } catch (e) {
        out[peer] = (e as Error).message;
        this.log.warn({ peer, error: (e as Error).message }, 'anti-entropy: peer sync failed');
      }
    }
    this.rounds++;
    return out;
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }
}
