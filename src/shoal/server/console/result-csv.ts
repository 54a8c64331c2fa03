/**
 * The console's CSV export of the result it shows (RFC 4180: CRLF line ends, a field holding a
 * quote, comma or line break is quoted with its quotes doubled). A field holding a semicolon or a
 * tab is quoted too: Excel in de/fr/nl locales splits an unquoted field on `;`, so `x;=1+1` would
 * open as two cells, the second a formula. A spreadsheet runs a cell that
 * starts with `=`, `+`, `-`, `@`, a tab or a carriage return as a formula, so such a text cell is
 * prefixed with `'` (CSV formula injection); a text cell that is a plain number (`-12.50`, how
 * decimals travel) is data, not a formula, and is left as it is.
 *
 * These functions run in the browser too: console-script.ts embeds their source, so they use
 * nothing but each other and the language.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let s = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(s) && !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) s = "'" + s;
  return /[",;\t\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

/** A header row of the column names, then one line per row; every line ends with CRLF. */
export function resultCsv(columns: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const line = (cells: readonly unknown[]): string => cells.map(csvField).join(',') + '\r\n';
  let out = line(columns);
  for (const row of rows) out += line(row);
  return out;
}
