/**
 * Effects inside `tik serve`: read the rules, open the shared ledger, run the loop, and answer
 * `GET /effects` (this replica's view of the fleet's deliveries and leases).
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { openSqlClient } from '../../core/sql/open-sql-client.js';
import type { Instant } from '../edn/index.js';
import { TikError } from '../errors.js';
import type { EventStore } from '../store/store.js';
import { DeliveryLedger, type DeliveryState } from './delivery-ledger.js';
import { parseEffectsConfig } from './effects-config.js';
import type { EffectsOptions } from './effects-options.js';
import { EffectsRunner, type EffectsLog } from './effects-runner.js';
import { httpWebhookSender, type SendWebhook } from './webhook-sender.js';

export interface EffectsService {
  readonly runner: EffectsRunner;
  readonly ledger: DeliveryLedger;
  /** The Fastify plugin serving `GET /effects`. */
  routes(app: FastifyInstance): Promise<void>;
  start(): void;
  /** Stop the loop (waits for a round in flight) and close the ledger connection. */
  close(): Promise<void>;
}

/** The store's own directory for its side files: the file store's base, or the SQLite file's directory. */
export function defaultEffectsFile(store: EventStore, cwd: string): string {
  if (store.kind === 'file') return resolve(store.location, 'effects.edn');
  if (store.kind === 'sqlite') return resolve(dirname(store.location), 'effects.edn');
  return resolve(cwd, 'effects.edn');
}

export interface OpenEffectsDeps {
  readonly store: EventStore;
  readonly now: () => Instant;
  readonly cwd: string;
  readonly log?: EffectsLog;
  readonly send?: SendWebhook;
}

/** Read and check the rules and open the ledger; a bad file or database fails here, before serving. */
export async function openEffects(options: EffectsOptions, deps: OpenEffectsDeps): Promise<EffectsService> {
  const file = resolve(deps.cwd, options.file);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new TikError('effects/no-file', `cannot read the effect rules at ${file}`, {
      where: file,
      hint: 'write effects.edn in the store directory (or set TIK_EFFECTS_FILE), e.g. {:effects [{:stage :resolved :url "https://hooks.example/tik"}]}',
    });
  }
  const config = parseEffectsConfig(text, file);
  const db = await openSqlClient(options.db, { baseDir: deps.cwd });
  let ledger: DeliveryLedger;
  try {
    ledger = await DeliveryLedger.open(db, { leaseMs: options.leaseMs, ...(options.prefix ? { prefix: options.prefix } : {}) });
    for (const p of config.pipelines) await ledger.addPipeline(p);
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
  const runner = new EffectsRunner({
    store: deps.store,
    config,
    ledger,
    send: deps.send ?? httpWebhookSender(options.timeoutMs),
    now: deps.now,
    intervalMs: options.intervalMs,
    maxAttempts: options.maxAttempts,
    backoff: options.backoff,
    ...(options.writer ? { writer: options.writer } : {}),
    ...(deps.log ? { log: deps.log } : {}),
  });
  return {
    runner,
    ledger,
    routes: async (app) => {
      const querystring = { type: 'object', additionalProperties: false, properties: { state: { enum: ['pending', 'delivered', 'dead'] } } } as const;
      app.get<{ Querystring: { state?: DeliveryState } }>('/effects', { schema: { querystring } }, async (req) => {
        const [pipelines, counts, deliveries] = await Promise.all([ledger.pipelines(), ledger.counts(), ledger.list(req.query.state)]);
        return {
          writer: runner.writer,
          rules: config.rules.length,
          rounds: runner.rounds,
          lastRound: runner.lastRound ?? null,
          totals: runner.totals,
          lastError: runner.lastError ?? null,
          pipelines: pipelines.map((p) => ({ pipeline: p.key, writer: p.writer, epoch: p.epoch, live: p.live, untilMs: p.untilMs })),
          counts,
          deliveries,
        };
      });
    },
    start: () => runner.start(),
    close: async () => {
      await runner.stop();
      await db.close();
    },
  };
}
