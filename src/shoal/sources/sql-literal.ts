/**
 * A scalar a caller may bind as a query parameter or use in a pushed-down predicate. It lives with
 * the sources, the lowest layer that binds one; the engine and the SQL layer use it from here.
 */
export type SqlLiteral = string | number | bigint | boolean | null;
