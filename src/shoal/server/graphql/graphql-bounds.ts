/**
 * What one GraphQL request may ask for. Depth and width bound how many statements a request can
 * cause (one per root field and one per relationship per level, see graphql-schema.ts); the page
 * size bounds the rows of each. Introspection fields (`__schema`, `__type`, …) are not counted: they
 * read the schema, never a source.
 */
import { type DocumentNode, type FragmentDefinitionNode, Kind, type SelectionSetNode } from 'graphql';
import { ShoalError } from '../../errors.js';

export const GRAPHQL_BOUNDS = {
  /** Nesting of fields (`orders { nodes { customer { name } } }` is 4). */
  maxDepth: 10,
  /** Fields in the operation, fragments expanded. */
  maxFields: 300,
  /** `first` of a root field and `limit` of a nested list, at most. */
  maxPageSize: 1000,
  /** …and when the query gives none. */
  defaultPageSize: 100,
  /** GraphQL tokens in the query text (checked while parsing). */
  maxTokens: 5000,
} as const;

/** Refuse an operation deeper or wider than GRAPHQL_BOUNDS (run after validation: no fragment cycles). */
export function checkBounds(doc: DocumentNode, operationName: string | undefined): void {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION && (operationName === undefined || d.name?.value === operationName));
  if (!op || op.kind !== Kind.OPERATION_DEFINITION) return; // execute reports a missing operation
  let fields = 0;
  let deepest = 0;
  const walk = (set: SelectionSetNode | undefined, depth: number): void => {
    for (const s of set?.selections ?? []) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value.startsWith('__')) continue;
        fields++;
        deepest = Math.max(deepest, depth);
        walk(s.selectionSet, depth + 1);
      } else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet, depth);
      else walk(fragments[s.name.value]?.selectionSet, depth);
    }
  };
  walk(op.selectionSet, 1);
  const { maxDepth, maxFields } = GRAPHQL_BOUNDS;
  if (deepest > maxDepth) throw new ShoalError('GRAPHQL_TOO_COMPLEX', `the query nests ${deepest} fields deep; at most ${maxDepth} are admitted`, { hint: 'split the query, or follow fewer relationships in one request' });
  if (fields > maxFields) throw new ShoalError('GRAPHQL_TOO_COMPLEX', `the query selects ${fields} fields; at most ${maxFields} are admitted`, { hint: 'split the query into several requests' });
}

/** A page size asked for (`first`, `limit`), checked against the bound. */
export function pageSize(asked: number | null | undefined, argument: string): number {
  if (asked === null || asked === undefined) return GRAPHQL_BOUNDS.defaultPageSize;
  if (asked < 0 || asked > GRAPHQL_BOUNDS.maxPageSize) {
    throw new ShoalError('GRAPHQL_TOO_COMPLEX', `${argument}: ${asked} is outside 0..${GRAPHQL_BOUNDS.maxPageSize}`, { hint: `page through larger results with after: pageInfo.endCursor` });
  }
  return asked;
}
