/**
 * The only module that imports @polyglot-sql/sdk (pinned 0.12.1). Everything else in shoal talks
 * to the AST through `ast-node.ts` and to SQL text through the functions here, so an upgrade is
 * re-certified in one place (run the corpus, the hazard regressions and the literal fuzz).
 */
import { Dialect, ast, generate, parse, validate } from '@polyglot-sql/sdk';
import type { Node } from './ast-node.js';

/** Every SQL dialect shoal reads or writes. The user-facing dialect is always `postgres`. */
export type SqlDialect = 'postgres' | 'duckdb' | 'mysql' | 'sqlite' | 'trino';

const DIALECTS: Readonly<Record<SqlDialect, Dialect>> = {
  postgres: Dialect.PostgreSQL,
  duckdb: Dialect.DuckDB,
  mysql: Dialect.MySQL,
  sqlite: Dialect.SQLite,
  trino: Dialect.Trino,
};

export type ParseOutcome =
  | { readonly ok: true; readonly statements: Node[] }
  | { readonly ok: false; readonly message: string; readonly line?: number; readonly column?: number; readonly start?: number };

export function parseText(sql: string, dialect: SqlDialect): ParseOutcome {
  const r = parse(sql, DIALECTS[dialect]);
  if (!r.success || !r.ast) {
    return {
      ok: false,
      message: r.error ?? 'unparseable SQL',
      ...(r.errorLine != null ? { line: r.errorLine } : {}),
      ...(r.errorColumn != null ? { column: r.errorColumn } : {}),
      ...(r.errorStart != null ? { start: r.errorStart } : {}),
    };
  }
  return { ok: true, statements: r.ast as unknown as Node[] };
}

export type StrictOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly line?: number; readonly column?: number; readonly start?: number };

/** Strict PostgreSQL validation: catches `SELEC x` (E004) and trailing commas (E005) that parse. */
export function strictCheck(sql: string): StrictOutcome {
  const v = validate(sql, 'postgresql', { strictSyntax: true });
  if (v.valid) return { ok: true };
  const e = v.errors.find((x) => x.severity !== 'warning') ?? v.errors[0];
  if (!e) return { ok: true };
  return {
    ok: false,
    code: e.code,
    message: e.message,
    ...(e.line != null ? { line: e.line } : {}),
    ...(e.column != null ? { column: e.column } : {}),
    ...(e.start != null ? { start: e.start } : {}),
  };
}

/** Render one statement; `undefined` when the generator refuses. */
export function generateText(stmt: Node, dialect: SqlDialect): string | undefined {
  const g = generate([stmt] as never, DIALECTS[dialect]);
  if (!g.success || !g.sql || g.sql.length !== 1) return undefined;
  return g.sql[0];
}

export function isExpressionNode(v: unknown): boolean {
  return ast.isExpressionValue(v as never);
}
