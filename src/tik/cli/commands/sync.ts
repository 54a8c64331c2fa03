import type { Command } from 'commander';
import { TikError } from '../../errors.js';
import { parseShardSpec, type ShardSpec } from '../../shard/shard-spec.js';
import type { EventStore } from '../../store/store.js';
import { isCodedError } from '../../../core/errors.js';
import type { SyncReport } from '../../sync/index.js';
import type { CliContext } from '../context.js';

/**
 * `tik sync URL [--pull | --push] [--json] [--timeout S] [--max-rounds N]`: reconcile with a
 * `tik serve` replica, then pull and push, bounded like every sync session (docs/tik-sync.md).
 */
export function registerSync(verb: Command, ctx: CliContext): void {
  verb
    .argument('<url>', 'the replica, e.g. http://127.0.0.1:7777')
    .option('--pull', 'only fetch what this store lacks')
    .option('--push', 'only send what the replica lacks')
    .option('--json', 'print the sync report as JSON (see docs/tik-sync.md)')
    .option('--timeout <seconds>', 'per request to the replica', '60')
    .option('--max-rounds <n>', 'reconciliation round trips before the replica is given up on', '2048')
    .action(async (url: string, opts: { pull?: boolean; push?: boolean; json?: boolean; timeout: string; maxRounds: string }) => {
      const { SHARD_HEADER } = await import('../../shard/shard-directory.js');
      const { shardText } = await import('../../shard/shard-spec.js');
      const { ShardStore } = await import('../../shard/shard-store.js');
      const { effectiveRegister } = await import('../../roles/effective-register.js');
      const { compareRoles, peerRolesDigest, rolesDifferLine } = await import('../../roles/peer-roles.js');
      const { httpTransport, syncWith } = await import('../../sync/index.js');
      const { toleratePushRefusal } = await import('../../sync/push-refusal.js');
      const { tokenHeaders } = await import('../remote-store.js');
      const { openStore } = await import('../store-access.js');
      if (opts.pull && opts.push) throw new TikError('cli/usage', '--pull and --push exclude each other (give neither to do both)', { where: '--pull/--push', hint: 'tik sync URL' });
      const timeout = Number(opts.timeout);
      if (!(timeout > 0 && timeout <= 86_400)) throw new TikError('cli/usage', `--timeout must be a number of seconds between 0 and 86400, got ${JSON.stringify(opts.timeout)}`, { where: '--timeout', hint: 'e.g. --timeout 60' });
      const rounds = Number(opts.maxRounds);
      if (!(Number.isInteger(rounds) && rounds >= 1 && rounds <= 1_000_000)) throw new TikError('cli/usage', `--max-rounds must be an integer between 1 and 1000000, got ${JSON.stringify(opts.maxRounds)}`, { where: '--max-rounds', hint: 'e.g. --max-rounds 2048' });
      // A sharded replica reconciles only its shard: sync exactly that part of this store, saying which.
      const shard = await peerShard(url);
      const http = httpTransport(url, { timeoutMs: Math.round(timeout * 1000), headers: { ...tokenHeaders(ctx), ...(shard ? { [SHARD_HEADER]: shardText(shard) } : {}) } });
      // Both ways: a push the replica's policy refuses does not undo the pull; it is reported. `--push` alone fails.
      const tolerant = opts.push ? undefined : toleratePushRefusal(http);
      const transport = tolerant?.transport ?? http;
      const local = await openStore(ctx);
      const store: EventStore = shard ? new ShardStore(local, shard) : local;
      if (shard) ctx.warn(`${url} holds shard ${shardText(shard)}: syncing only this store's tickets of that shard`);
      let report: SyncReport;
      try {
        report = await syncWith(store, transport, {
          direction: opts.pull ? 'pull' : opts.push ? 'push' : 'both',
          onProgress: (line) => ctx.warn(line),
          limits: { rounds },
        });
      } catch (e) {
        // A peer that broke a limit is given up on for this run; --json says so in the report too.
        if (opts.json && isCodedError(e)) ctx.json({ ok: false, peer: url, gaveUp: /^sync\/(peer-limit|timeout|bad-|refused|truncated|too-large)/.test(e.code), error: { code: e.code, message: e.message } });
        throw e;
      }
      // The same events derive the same stages only under the same roles register: compare.
      const roles = compareRoles(url, await effectiveRegister(store), await peerRolesDigest(url, { headers: { ...tokenHeaders(ctx), ...(shard ? { [SHARD_HEADER]: shardText(shard) } : {}) } }));
      const differ = rolesDifferLine(roles);
      const refusal = tolerant?.refusal();
      if (refusal) ctx.warn(`${refusal.message}${refusal.stopped ? ': pulled only' : ''}${refusal.status === 401 ? ' — set TIK_TOKEN to a token that replica accepts for pushes' : ''}`);
      if (opts.json) ctx.json({ ok: true, ...report, ...(refusal ? { pushRefused: { code: refusal.code, status: refusal.status, message: refusal.message, refused: refusal.refused } } : {}), roles: { local: roles.local, peer: roles.peer ?? null, verdict: roles.verdict } });
      else {
        ctx.out(`synced with ${url}: pulled ${report.pulled}, pushed ${report.pushed}${refusal ? ` (push refused: ${refusal.code})` : ''} (${report.rounds} round trip(s), ${report.reconcileBytesSent + report.reconcileBytesReceived} reconciliation bytes)${report.truncated ? ' — more to do: run tik sync again' : ''}`);
        if (differ) ctx.out(differ);
      }
    });
}

/**
 * The shard a replica announces on `/health` (`shard: "i/M"`), or undefined for an unsharded one
 * (`0/1`, no field, or no usable answer — the sync itself then reports what is wrong).
 */
async function peerShard(url: string): Promise<ShardSpec | undefined> {
  let body: unknown;
  try {
    const res = await fetch(new URL('/health', url), { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) return undefined;
    body = await res.json();
  } catch {
    return undefined;
  }
  const text = typeof body === 'object' && body !== null ? (body as { shard?: unknown }).shard : undefined;
  if (typeof text !== 'string') return undefined;
  const spec = parseShardSpec(text, `${url}/health shard`);
  return spec.count > 1 ? spec : undefined;
}
