/**
 * The polyglot AST as plain data: every node is a one-key object `{type: data}` (serde style).
 * Helpers here are pure JavaScript over that shape; the WASM-backed helpers of the SDK are
 * scope-blind (hazard H4 of the governance study) and are never used for security decisions.
 */
import { isExpressionNode } from './polyglot.js';

// The SDK's node payloads are untyped JSON; one deliberate escape hatch keeps the walkers readable.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Data = any;
export type Node = Record<string, Data>;

export const typeOf = (n: Node): string => Object.keys(n)[0] ?? '';
export const dataOf = (n: Node): Data => n[typeOf(n)];

/** Direct child nodes and the field path they hang from (plain containers are looked through). */
export function* children(node: Node): Generator<[Node, string]> {
  const d = dataOf(node);
  if (!d || typeof d !== 'object') return;
  for (const [k, v] of Object.entries(d)) yield* descend(v, k);
}

function* descend(v: unknown, path: string): Generator<[Node, string]> {
  if (v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) yield* descend(v[i], `${path}[${i}]`);
    return;
  }
  if (isExpressionNode(v)) {
    yield [v as Node, path];
    return;
  }
  for (const [k, x] of Object.entries(v)) yield* descend(x, `${path}.${k}`);
}

/** Every node of a tree, pre-order, with its path. */
export function* allNodes(node: Node, path = ''): Generator<[Node, string]> {
  yield [node, path];
  for (const [c, p] of children(node)) yield* allNodes(c, `${path}/${typeOf(node)}.${p}`);
}

/** Replace a node in place (nodes are one-key objects, so references to it stay valid). */
export function replaceInPlace(target: Node, replacement: Node): void {
  for (const k of Object.keys(target)) delete target[k];
  Object.assign(target, replacement);
}

/** An identifier's name as PostgreSQL binds it: unquoted names fold to lower case. */
export function identName(i: Data): string | undefined {
  if (i == null) return undefined;
  if (typeof i === 'string') return i;
  return i.quoted ? String(i.name) : String(i.name).toLowerCase();
}

export const identifier = (name: string): Data => ({ name, quoted: true, trailing_comments: [] });

export const stringLiteral = (value: string): Node => ({ literal: { literal_type: 'string', value } });
export const numberLiteral = (value: string): Node => ({ literal: { literal_type: 'number', value } });
export const nullLiteral = (): Node => ({ null: null });

export const columnRef = (name: string, table?: string): Node => ({
  column: {
    name: identifier(name),
    table: table === undefined ? null : identifier(table),
    join_mark: false,
    trailing_comments: [],
  },
});

/** Query nodes: the roots a governed statement may have, and the nodes that open a scope. */
export const QUERY_TYPES: ReadonlySet<string> = new Set(['select', 'union', 'intersect', 'except']);

/** The first source position found in a node (identifiers and columns carry spans). */
export function positionOf(node: Node | undefined, sql?: string): { line: number; column: number } | undefined {
  if (!node) return undefined;
  const seen: Data[] = [node];
  for (let i = 0; i < seen.length && i < 500; i++) {
    const v = seen[i];
    if (!v || typeof v !== 'object') continue;
    if (v.span && typeof v.span.start === 'number') return sql === undefined
      ? { line: v.span.line, column: Math.max(1, v.span.column - (v.span.end - v.span.start)) }
      : offsetToPosition(sql, v.span.start);
    for (const x of Object.values(v)) if (x && typeof x === 'object') seen.push(x);
  }
  return undefined;
}

/** 1-based line and column of a character offset (polyglot offsets count characters). */
export function offsetToPosition(sql: string, offset: number): { line: number; column: number } {
  const chars = [...sql];
  let line = 1;
  let column = 1;
  for (let i = 0; i < Math.min(offset, chars.length); i++) {
    if (chars[i] === '\n') {
      line++;
      column = 1;
    } else column++;
  }
  return { line, column };
}
