import { emit } from '../edn/index.js';
import type { ExplainBlock, ExplainResult, Reason } from '../kernel/index.js';
import { reasonKey, reasonPath } from '../kernel/index.js';

/** A reason flattened for the step checks: its kind, the fact path and role as canonical text. */
export interface ReasonView {
  readonly kind: string;
  /** Canonical text of the fact path vector (`[:category]`), if the reason is about one. */
  readonly path: string | undefined;
  /** Role keyword text (`:triager`) for `role/unsatisfied`. */
  readonly role: string | undefined;
  /** The reason as canonical EDN, for failure messages. */
  readonly text: string;
}

/** The explain block of a frontier stage (`':triaged'`), if the stage is blocked there. */
export function explainBlock(result: ExplainResult, stage: string): ExplainBlock | undefined {
  return result.blocks.find((b) => b.stage === stage);
}

/** Every reason of a block, descending through `:alternatives` options. */
export function reasonsOf(block: ExplainBlock): ReasonView[] {
  const out: ReasonView[] = [];
  const visit = (r: Reason): void => {
    if (r.kind === 'alternatives') {
      for (const o of r.options) for (const c of o.reasons) visit(c);
      return;
    }
    const path = reasonPath(r);
    out.push({
      kind: r.kind,
      path: path ? emit([...path]) : undefined,
      role: r.kind === 'role/unsatisfied' ? r.role.toString() : undefined,
      text: reasonKey(r),
    });
  };
  for (const r of block.missing) visit(r);
  return out;
}
