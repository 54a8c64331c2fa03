import type { Node } from '../ast-node.js';

/** PostgreSQL is the contract: the governed AST is rendered as is. */
export function adaptForPostgres(_stmt: Node): void {}
