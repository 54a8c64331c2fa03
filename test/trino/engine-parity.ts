/**
 * Comparing the two engines over the same sources: a DuckDB instance and a `federation_engine:
 * trino` instance started from one config, and one governed query run on each engine as the
 * parity tests compare it (planned for the viewer and the engine's dialect, run with the plan's
 * pushdown, reduced to a multiset of rows, or the error code when planning or the engine refuses).
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { loadConfig } from '../../src/shoal/check/load-config.js';
import type { Cell } from '../../src/shoal/engine/engine.js';
import { ShoalError } from '../../src/shoal/errors.js';
import { ShoalInstance } from '../../src/shoal/instance/instance.js';
import { type GovernanceCatalog, catalogFromConfig, planQuery } from '../../src/shoal/sql/index.js';
import { type Viewer, collect, lawQueryArb, viewerArb } from '../shoal/sql/pushdown-law.js';

export type Outcome = { readonly ok: true; readonly rows: string[] } | { readonly ok: false; readonly code: string };

export const canon = (rows: readonly (readonly Cell[])[]): string[] => rows.map((r) => JSON.stringify(r)).sort();

/**
 * Trino may fail closed where DuckDB answers (a construct outside its certified subset; a division by
 * zero, which DuckDB answers with NULL and Trino refuses as a data error), never answer differently.
 */
export const TRINO_FAILS_CLOSED_CODES: readonly string[] = ['SQL_UNSUPPORTED', 'ENGINE_QUERY_FAILED', 'SQL_GENERATE', 'SQL_DATA_EXCEPTION'];

export async function governedOutcome(instance: ShoalInstance, governance: GovernanceCatalog, sql: string, viewer: Viewer): Promise<Outcome> {
  let plan;
  try {
    plan = planQuery({ sql, role: viewer.role, vars: viewer.vars }, governance, { route: 'engine', engine: instance.engine.name });
  } catch (e) {
    if (e instanceof ShoalError) return { ok: false, code: e.code };
    throw e;
  }
  try {
    return { ok: true, rows: canon(await collect(instance.engine.execute(plan.sql, plan.pushdown ? { pushdown: plan.pushdown } : {}))) };
  } catch (e) {
    if (e instanceof ShoalError) return { ok: false, code: e.code };
    throw e;
  }
}

export interface EnginePair {
  readonly duck: ShoalInstance;
  readonly trino: ShoalInstance;
  /** The config's governance catalog (what both instances plan with). */
  readonly governance: GovernanceCatalog;
  close(): Promise<void>;
}

/** Both instances from `yaml` (a `control_plane` on `sqlite:///registry.db`), each with its own registry, in `dir`. */
export async function startEnginePair(yaml: string, dir: string, trinoUrl: string): Promise<EnginePair> {
  const start = async (extra: string, registry: string) => {
    const { config } = loadConfig(`${extra}${yaml.replace('sqlite:///registry.db', `sqlite:///${registry}`)}`);
    return ShoalInstance.start({ config, baseDir: dir, pollMs: 60_000, mv: { tickMs: 0 }, hot: false, resultCache: false });
  };
  const duck = await start('', 'duck.db');
  const trino = await start(`federation_engine: trino\nfederation_engine_url: ${trinoUrl}\nfederation_engine_scratch_dir: scratch\n`, 'trino.db').catch(async (e: unknown) => {
    await duck.close();
    throw e;
  });
  expect(trino.engine.name).toBe('trino');
  return {
    duck,
    trino,
    governance: catalogFromConfig(loadConfig(yaml).config),
    close: async () => {
      await duck.close();
      await trino.close();
    },
  };
}

/** The governance law on both engines, for generated governed queries and every viewer: Trino gives DuckDB's multiset, or fails closed. How many were compared. */
export async function assertGovernedParity(pair: EnginePair, runs: { readonly numRuns: number; readonly seed: number }): Promise<number> {
  let compared = 0;
  await fc.assert(
    fc.asyncProperty(lawQueryArb, viewerArb, async (sql, viewer) => {
      const d = await governedOutcome(pair.duck, pair.governance, sql, viewer);
      const t = await governedOutcome(pair.trino, pair.governance, sql, viewer);
      if (d.ok && t.ok) {
        compared++;
        expect(t.rows, `${viewer.role} ${JSON.stringify(viewer.vars)}: ${sql}`).toEqual(d.rows);
      } else if (d.ok && !t.ok) expect(TRINO_FAILS_CLOSED_CODES).toContain(t.code);
    }),
    runs,
  );
  return compared;
}
