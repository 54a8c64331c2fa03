/**
 * Rewrite `?` placeholders to PostgreSQL's `$1, $2, …`, leaving `?` inside string literals, quoted
 * identifiers, comments and dollar-quoted strings alone.
 */
export function toPostgresPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === "'" || c === '"') {
      const end = closingQuote(sql, i, c);
      out += sql.slice(i, end);
      i = end;
    } else if (c === '-' && next === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end < 0 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      const stop = end < 0 ? sql.length : end + 2;
      out += sql.slice(i, stop);
      i = stop;
    } else if (c === '$' && /[A-Za-z_$]/.test(next ?? '') && !/[A-Za-z0-9_]/.test(sql[i - 1] ?? '')) {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i))?.[0];
      if (tag) {
        const end = sql.indexOf(tag, i + tag.length);
        const stop = end < 0 ? sql.length : end + tag.length;
        out += sql.slice(i, stop);
        i = stop;
      } else {
        out += c;
        i++;
      }
    } else if (c === '?') {
      out += `$${++n}`;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Index just past the quote that closes the one at `start` (a doubled quote is an escaped quote). */
function closingQuote(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return sql.length;
}
