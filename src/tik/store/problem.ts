/**
 * A problem found while reading a store, reported rather than thrown where a reader should
 * degrade (a missing parent, an unresolvable pin, one bad event file among many). Codes are
 * stable, like error codes.
 */
export interface StoreProblem {
  readonly code: string;
  /** What is wrong, naming the thing (file, event id, hash). */
  readonly message: string;
  /** The file or key the problem is about, when there is one. */
  readonly where?: string;
  /** The event the problem is about, when there is one. */
  readonly event?: string;
  readonly hint?: string;
}

export function problem(code: string, message: string, extra: Omit<StoreProblem, 'code' | 'message'> = {}): StoreProblem {
  const p: { -readonly [K in keyof StoreProblem]: StoreProblem[K] } = { code, message };
  if (extra.where !== undefined) p.where = extra.where;
  if (extra.event !== undefined) p.event = extra.event;
  if (extra.hint !== undefined) p.hint = extra.hint;
  return Object.freeze(p);
}
