/**
 * How `tik serve` runs effects: the shared ledger database (`--effects-db URL` or `TIK_EFFECTS_DB`),
 * the rules file, and timings from the environment so tests can run them fast:
 *
 * | variable                    | default            | meaning                                   |
 * |-----------------------------|--------------------|-------------------------------------------|
 * | `TIK_EFFECTS_FILE`          | `<store>/effects.edn` | the rules                              |
 * | `TIK_EFFECTS_INTERVAL_MS`   | 5000               | time between scan/deliver rounds          |
 * | `TIK_EFFECTS_LEASE_MS`      | 30000              | per-pipeline lease length                 |
 * | `TIK_EFFECTS_MAX_ATTEMPTS`  | 5                  | attempts before a dead letter             |
 * | `TIK_EFFECTS_BACKOFF_MS`    | 1000               | first retry delay (doubles per attempt)   |
 * | `TIK_EFFECTS_BACKOFF_MAX_MS`| 300000             | longest retry delay                       |
 * | `TIK_EFFECTS_TIMEOUT_MS`    | 10000              | one POST's time limit                     |
 */
import { TikError } from '../errors.js';
import type { Backoff } from './backoff.js';

export interface EffectsOptions {
  /** The shared ledger: `sqlite:///path.db`, `sqlite:////abs/path.db` or `postgresql://…`. */
  readonly db: string;
  /** The rules file (absolute, or relative to the working directory). */
  readonly file: string;
  readonly intervalMs: number;
  readonly leaseMs: number;
  readonly maxAttempts: number;
  readonly backoff: Backoff;
  readonly timeoutMs: number;
  /** Ledger table prefix (default `tik_effect_`). */
  readonly prefix?: string;
  /** This sender's lease token (default host/pid/random). */
  readonly writer?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw new TikError('cli/usage', `${name} must be a positive whole number, got ${JSON.stringify(raw)}`, { where: name, hint: `e.g. ${name}=${fallback}` });
  }
  return n;
}

/** Effects options from `db`, the default rules file, and the `TIK_EFFECTS_*` variables. */
export function effectsOptionsFromEnv(db: string, defaultFile: string, env: Env): EffectsOptions {
  const base = positiveInt(env, 'TIK_EFFECTS_BACKOFF_MS', 1000);
  return {
    db,
    file: env.TIK_EFFECTS_FILE || defaultFile,
    intervalMs: positiveInt(env, 'TIK_EFFECTS_INTERVAL_MS', 5000),
    leaseMs: positiveInt(env, 'TIK_EFFECTS_LEASE_MS', 30_000),
    maxAttempts: positiveInt(env, 'TIK_EFFECTS_MAX_ATTEMPTS', 5),
    backoff: { baseMs: base, maxMs: Math.max(base, positiveInt(env, 'TIK_EFFECTS_BACKOFF_MAX_MS', 300_000)) },
    timeoutMs: positiveInt(env, 'TIK_EFFECTS_TIMEOUT_MS', 10_000),
  };
}
