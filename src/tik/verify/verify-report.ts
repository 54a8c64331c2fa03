/**
 * The shape `verifyStore` returns and `tik verify --json` prints (tik-model.md §8.4). Stable:
 * add fields, never rename them.
 *
 * A level is `ok` when it has no problems; notes (a future-dated event, unsigned events) are
 * reported but never fail a level.
 */
import type { StoreProblem } from '../store/problem.js';

export type Level = 'L0' | 'L1' | 'L2' | 'L3';

export interface LevelReport {
  readonly ok: boolean;
  readonly problems: readonly StoreProblem[];
  readonly notes: readonly StoreProblem[];
}

export interface TicketReport {
  readonly ticket: string;
  readonly ok: boolean;
  /** L0 integrity, L1 authorship, L2 the pin and derivation, L3 head witnesses. */
  readonly levels: { readonly L0: LevelReport; readonly L1: LevelReport; readonly L2: LevelReport; readonly L3: LevelReport };
  readonly events: number;
  /** Events with at least one authorship signature that verifies as their own actor. */
  readonly signed: number;
}

export interface VerifyReport {
  readonly ok: boolean;
  readonly tickets: readonly TicketReport[];
  /** Store-wide checks: the process archive and its signatures, the actors file. */
  readonly store: LevelReport;
}

export function levelReport(problems: readonly StoreProblem[], notes: readonly StoreProblem[] = []): LevelReport {
  return Object.freeze({ ok: problems.length === 0, problems: Object.freeze([...problems]), notes: Object.freeze([...notes]) });
}
