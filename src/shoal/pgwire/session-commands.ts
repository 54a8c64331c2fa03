/**
 * The session statements a pgwire connection answers itself, because they read no data: SET /
 * RESET / SHOW of settings, SET ROLE (chooses among the principal's granted roles, checked as
 * X-Provisa-Role is over HTTP), SET of a `provisa.*` session variable (allowed only when the
 * config makes it client-settable, as `vars` over HTTP), and the transaction statements (shoal is
 * read-only, so a transaction block only changes the status clients see in ReadyForQuery).
 */

export type SessionCommand =
  | { readonly kind: 'set'; readonly name: string; readonly value: string | undefined }
  | { readonly kind: 'show'; readonly name: string }
  /** `SELECT current_catalog`, `version()`, …: a value of the session, under the name PostgreSQL gives it. */
  | { readonly kind: 'function'; readonly fn: string; readonly column: string }
  | { readonly kind: 'begin' }
  | { readonly kind: 'commit' }
  | { readonly kind: 'rollback' }
  | { readonly kind: 'noop'; readonly tag: string };

/** A SET value without its quotes (`'eu'`, `"x"`, `eu`); DEFAULT is no value. */
function valueOf(raw: string): string | undefined {
  const v = raw.trim();
  if (/^default$/i.test(v)) return undefined;
  if (v.startsWith("'") && v.endsWith("'") && v.length >= 2) return v.slice(1, -1).replace(/''/g, "'");
  if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) return v.slice(1, -1).replace(/""/g, '"');
  return v;
}

/** The session command `sql` is, or undefined when it is a query for the governed path. */
export function sessionCommand(sql: string): SessionCommand | undefined {
  const s = sql.trim().replace(/;\s*$/, '');
  let m: RegExpExecArray | null;
  if ((m = /^set\s+(?:session\s+|local\s+)?role\s+(?:to\s+|=\s*)?(.+)$/is.exec(s))) {
    const v = valueOf(m[1]!);
    return { kind: 'set', name: 'role', value: v === undefined || /^none$/i.test(v) ? undefined : v };
  }
  if (/^set\s+(session\s+characteristics|transaction)\b/i.test(s)) return { kind: 'noop', tag: 'SET' };
  if ((m = /^set\s+(?:session\s+|local\s+)?([A-Za-z_][\w.]*)\s*(?:=|\s+to\b)\s*(.*)$/is.exec(s))) return { kind: 'set', name: m[1]!.toLowerCase(), value: valueOf(m[2]!) };
  if ((m = /^set\s+time\s+zone\s+(.+)$/is.exec(s))) return { kind: 'set', name: 'timezone', value: valueOf(m[1]!) };
  if ((m = /^reset\s+([A-Za-z_][\w.]*)$/i.exec(s))) return m[1]!.toLowerCase() === 'all' ? { kind: 'noop', tag: 'RESET' } : { kind: 'set', name: m[1]!.toLowerCase(), value: undefined };
  if ((m = /^show\s+([A-Za-z_][\w.]*)$/i.exec(s))) return { kind: 'show', name: m[1]!.toLowerCase() };
  if ((m = /^select\s+(?:pg_catalog\.)?(current_catalog|current_database\(\)|current_schema(?:\(\))?|version\(\)|current_user|session_user|user|pg_backend_pid\(\))(?:\s+as\s+("?)([A-Za-z_]\w*)\2)?$/i.exec(s))) {
    const fn = m[1]!.toLowerCase().replace('()', '');
    return { kind: 'function', fn, column: m[3] ? (m[2] ? m[3] : m[3].toLowerCase()) : fn };
  }
  if (/^(begin|start\s+transaction)\b/i.test(s)) return { kind: 'begin' };
  if (/^(commit|end)\b/i.test(s)) return { kind: 'commit' };
  if (/^(rollback|abort)\b/i.test(s)) return { kind: 'rollback' };
  if (/^discard\s+all$/i.test(s)) return { kind: 'noop', tag: 'DISCARD ALL' };
  if (/^deallocate\b/i.test(s)) return { kind: 'noop', tag: 'DEALLOCATE' };
  return undefined;
}
