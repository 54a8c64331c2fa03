/**
 * `SHOW TABLES [FROM|IN <domain>]`, `DESCRIBE [TABLE] <table>` (also `DESC`) and `SHOW COLUMNS
 * FROM|IN <table>`: PostgreSQL has none of them (psql's `\dt` and `\d`), so they are read as
 * queries over the governed `information_schema` views and planned like any other query — they
 * show exactly what the role may see. A DESCRIBE of a table the role may not read fails exactly
 * as a query of it does (SQL_UNKNOWN_TABLE, with suggestions only from the tables it may read).
 */
/** An identifier as PostgreSQL binds it: unquoted folds to lower case, quoted keeps its text. */
const IDENT = String.raw`(?:[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+")`;
const NAME = String.raw`${IDENT}(?:\s*\.\s*${IDENT}){0,2}`;
const TAIL = String.raw`\s*;?\s*$`;

const SHOW_TABLES = new RegExp(String.raw`^\s*SHOW\s+TABLES(?:\s+(?:FROM|IN)\s+(${IDENT}))?${TAIL}`, 'i');
const DESCRIBE = new RegExp(String.raw`^\s*(?:DESCRIBE|DESC)\s+(?:TABLE\s+)?(${NAME})${TAIL}`, 'i');
const SHOW_COLUMNS = new RegExp(String.raw`^\s*SHOW\s+COLUMNS\s+(?:FROM|IN)\s+(${NAME})${TAIL}`, 'i');

function parts(name: string): string[] {
  return (name.match(new RegExp(IDENT, 'g')) ?? []).map((p) => (p.startsWith('"') ? p.slice(1, -1).replace(/""/g, '"') : p.toLowerCase()));
}

const literal = (v: string) => `'${v.replace(/'/g, "''")}'`;
const quoted = (v: string) => `"${v.replace(/"/g, '""')}"`;

/** A catalog command read as SQL; a DESCRIBE first plans `probe` (resolving its table as a query would), then answers `sqlFor(table)`. */
export type CatalogCommand =
  | { readonly kind: 'show_tables'; readonly sql: string }
  | { readonly kind: 'describe'; readonly probe: string; readonly sqlFor: (tableKey: string) => string };

/** The catalog command `sql` is, or undefined when it is none (then it is planned as written). */
export function catalogCommand(sql: string): CatalogCommand | undefined {
  if (typeof sql !== 'string') return undefined;
  const show = SHOW_TABLES.exec(sql);
  if (show) {
    const where = show[1] === undefined ? '' : ` WHERE table_schema = ${literal(parts(show[1])[0]!)}`;
    return { kind: 'show_tables', sql: `SELECT table_schema, table_name, table_type FROM information_schema.tables${where} ORDER BY table_schema, table_name` };
  }
  const d = DESCRIBE.exec(sql) ?? SHOW_COLUMNS.exec(sql);
  if (!d) return undefined;
  const name = parts(d[1]!);
  return {
    kind: 'describe',
    // the table is resolved exactly as a query would resolve it: same errors, same hints
    probe: `SELECT * FROM ${name.map(quoted).join('.')}`,
    sqlFor: (tableKey) => {
      const dot = tableKey.indexOf('.');
      return 'SELECT column_name, data_type, is_nullable, is_masked FROM information_schema.columns '
        + `WHERE table_schema = ${literal(tableKey.slice(0, dot))} AND table_name = ${literal(tableKey.slice(dot + 1))} ORDER BY ordinal_position`;
    },
  };
}
