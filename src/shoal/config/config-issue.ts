/**
 * One finding of the config loader: an error (the config can't be used) or a warning (it can, but
 * something is ignored or suspicious). Every issue names the key path (`tables[2].columns[0].mask_type`)
 * and, when the input was YAML text, the line and column of that key.
 */
export interface ConfigIssue {
  /** Stable: CONFIG_YAML, CONFIG_TYPE, CONFIG_UNKNOWN_KEY, CONFIG_UNSUPPORTED_KEY, CONFIG_ENV_MISSING, … */
  readonly code: string;
  /** Key path, e.g. `tables[2].columns[0].mask_type`; `''` for the whole document. */
  readonly path: string;
  /** What the path names, for a reader: `sales.orders.amount`, `source pg-main`, `RLS table orders / role analyst`. */
  readonly subject?: string;
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
  readonly hint?: string;
}

/** `tables[2].columns[0].mask_type: expected regex|constant|truncate (line 41)`; with a subject, `tables[3].columns[2] (sales.orders.amonut): …`. */
export function formatIssue(issue: ConfigIssue): string {
  const where = issue.subject === undefined ? issue.path : `${issue.path} (${issue.subject})`;
  const head = where === '' ? issue.message : `${where}: ${issue.message}`;
  return issue.line === undefined ? head : `${head} (line ${issue.line})`;
}

/** Key-path helpers: `child('tables[2]', 'columns')` → `tables[2].columns`; `item('tables', 2)` → `tables[2]`. */
export function child(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

export function item(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** Render a zod/array path (`['tables', 2, 'columns']`) as a key path. */
export function pathOf(segments: readonly PropertyKey[]): string {
  let out = '';
  for (const s of segments) out = typeof s === 'number' ? item(out, s) : child(out, String(s));
  return out;
}
