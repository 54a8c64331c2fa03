/** Quoting for Trino SQL built by the engine (identifiers and string literals). */

export function ident(name: string): string {
  return '"' + name.replace(/"/g, '""') + '"';
}

export function literal(text: string): string {
  return "'" + text.replace(/'/g, "''") + "'";
}

/** `"a"."b"."c"` from parts. */
export function qualified(...parts: readonly string[]): string {
  return parts.map(ident).join('.');
}
