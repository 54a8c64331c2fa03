import { TikError } from '../errors.js';
import { parseShardSpec, sameShard, shardText, type ShardSpec } from './shard-spec.js';

/** How long a probe or a shard call may take before the replica counts as unreachable. */
const PROBE_TIMEOUT_MS = 10_000;
const CALL_TIMEOUT_MS = 60_000;

/** An answer from a replica of another shard, passed on as it came. */
export interface ShardAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** The header a sharded request carries: the shard configuration the caller expects to reach. */
export const SHARD_HEADER = 'x-tik-shard';
/** Set on a request one replica forwards to another (a forwarded request is never forwarded again). */
export const FORWARDED_HEADER = 'x-tik-forwarded';

/**
 * How a replica finds the other shards: a list of replica URLs (`--shard-peer`, plus its own
 * `--peer`s), each of which announces its shard on `GET /health` (`{shard: "i/M"}`). Identities are
 * learned lazily and re-learned when a call finds a replica gone or reconfigured; a call names the
 * shard it expects (`x-tik-shard`) and the replica refuses (409) if it holds another one, so a
 * stale identity can cost a retry, never a wrong answer.
 */
export class ShardDirectory {
  private readonly known = new Map<string, ShardSpec | null>();

  constructor(
    readonly self: ShardSpec,
    readonly urls: readonly string[],
  ) {}

  /** The shard a replica announces, or null if it cannot be reached or announces none. */
  async probe(url: string): Promise<ShardSpec | null> {
    try {
      const res = await fetch(new URL('/health', url), { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
      const j = (await res.json()) as { shard?: unknown };
      const spec = typeof j.shard === 'string' ? parseShardSpec(j.shard, url) : null;
      this.known.set(url, spec);
      return spec;
    } catch {
      this.known.delete(url);
      return null;
    }
  }

  /** Known replicas of shard `index` (of this replica's count), probing those not yet known. */
  async replicasOf(index: number): Promise<string[]> {
    const want: ShardSpec = { index, count: this.self.count };
    const out: string[] = [];
    for (const url of this.urls) {
      const spec = this.known.has(url) ? this.known.get(url)! : await this.probe(url);
      if (spec && sameShard(spec, want)) out.push(url);
    }
    // Replicas not reachable at their last probe get another chance before the shard is declared down.
    if (out.length === 0) {
      for (const url of this.urls) {
        if (this.known.get(url) === null) {
          const spec = await this.probe(url);
          if (spec && sameShard(spec, want)) out.push(url);
        }
      }
    }
    return out;
  }

  /**
   * Sends a request to one live replica of shard `index`, trying each known replica in turn.
   * An answer `tryNext` rejects (e.g. "unknown ticket": that replica may not have synced a new
   * ticket yet) sends the request on to the next replica, and is returned if no other replica
   * answers better. Throws `shard/unavailable` (naming the shard and what was tried) when none answers.
   */
  async call(index: number, path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}, tryNext: (a: ShardAnswer) => boolean = () => false): Promise<ShardAnswer> {
    const want: ShardSpec = { index, count: this.self.count };
    const tried: string[] = [];
    let fallback: ShardAnswer | undefined;
    for (const url of await this.replicasOf(index)) {
      tried.push(url);
      try {
        const res = await fetch(new URL(path, url), {
          method: init.method ?? 'GET',
          headers: { ...init.headers, [SHARD_HEADER]: shardText(want), [FORWARDED_HEADER]: shardText(this.self) },
          ...(init.body !== undefined ? { body: init.body } : {}),
          signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
        });
        const body = await res.text();
        if (res.status === 409 && body.includes('"shard/mismatch"')) {
          this.known.delete(url); // reconfigured since we last looked
          continue;
        }
        const answer = { status: res.status, contentType: res.headers.get('content-type') ?? 'application/json', body };
        if (!tryNext(answer)) return answer;
        fallback = answer;
      } catch {
        this.known.set(url, null);
      }
    }
    if (fallback) return fallback;
    throw new TikError('shard/unavailable', `no reachable replica of shard ${shardText(want)}${tried.length > 0 ? ` (tried ${tried.join(', ')})` : ' (none known)'}`, {
      where: shardText(want),
      hint: `start a replica with --shard ${shardText(want)}, or list one with --shard-peer URL`,
    });
  }
}
