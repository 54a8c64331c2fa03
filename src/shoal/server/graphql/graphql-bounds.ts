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
  /**
   * Statements of one request running at once, all under its one `max_concurrent_queries` slot
   * (graphql-js starts every root field together; the rest wait their turn).
   */
  maxParallelStatements: 2,
  /**
   * Rows in one answer, each counted every time it appears: statements return few rows (a level's
   * keys are batched and deduplicated), but a relationship followed back and forth repeats them.
   */
  maxResultRows: 100_000,
  /** `and`/`or`/`not` nested in a `where` (each is a level of parentheses the SQL parser also bounds). */
  maxWhereDepth: 8,
} as const;

/** What checkBounds measured: fields (fragments expanded), depth, and the selections it visited. */
export interface BoundsReport {
  readonly fields: number;
  readonly depth: number;
  readonly visited: number;
}

/**
 * Refuse an operation deeper or wider than GRAPHQL_BOUNDS (run after validation: no fragment
 * cycles). Each fragment is measured once — its field count and depth do not depend on where it
 * is spread — and the walk stops at the first bound passed, so a fragment spread twice per level
 * over 40 levels costs 80 visits, not 2^40.
 */
export function checkBounds(doc: DocumentNode, operationName: string | undefined): BoundsReport | undefined {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION && (operationName === undefined || d.name?.value === operationName));
  if (!op || op.kind !== Kind.OPERATION_DEFINITION) return undefined; // execute reports a missing operation
  const { maxDepth, maxFields } = GRAPHQL_BOUNDS;
  let visited = 0;
  const measured = new Map<string, { fields: number; depth: number }>();
  // fields in `set` and its depth (0: no field), `above` field levels below the operation
  const measure = (set: SelectionSetNode | undefined, above: number): { fields: number; depth: number } => {
    let fields = 0;
    let depth = 0;
    for (const s of set?.selections ?? []) {
      visited++;
      let m: { fields: number; depth: number };
      if (s.kind === Kind.FIELD) {
        if (s.name.value.startsWith('__')) continue;
        const inner = measure(s.selectionSet, above + 1);
        m = { fields: 1 + inner.fields, depth: 1 + inner.depth };
      } else if (s.kind === Kind.INLINE_FRAGMENT) m = measure(s.selectionSet, above);
      else {
        const known = measured.get(s.name.value);
        m = known ?? measure(fragments[s.name.value]?.selectionSet, above);
        if (!known) measured.set(s.name.value, m);
      }
      fields += m.fields;
      depth = Math.max(depth, m.depth);
      if (above + depth > maxDepth) throw new ShoalError('GRAPHQL_TOO_COMPLEX', `the query nests more than ${maxDepth} fields deep`, { hint: 'split the query, or follow fewer relationships in one request' });
      if (fields > maxFields) {
        throw new ShoalError('GRAPHQL_TOO_COMPLEX', `the query selects more than ${maxFields} fields (fragments expanded)`, { hint: 'split the query into several requests, or spread each fragment fewer times' });
      }
    }
    return { fields, depth };
  };
  const { fields, depth } = measure(op.selectionSet, 0);
  return { fields, depth, visited };
}

/** A page size asked for (`first`, `limit`), checked against the bound. */
export function pageSize(asked: number | null | undefined, argument: string): number {
  if (asked === null || asked === undefined) return GRAPHQL_BOUNDS.defaultPageSize;
  if (asked < 0 || asked > GRAPHQL_BOUNDS.maxPageSize) {
    throw new ShoalError('GRAPHQL_TOO_COMPLEX', `${argument}: ${asked} is outside 0..${GRAPHQL_BOUNDS.maxPageSize}`, { hint: `page through larger results with after: pageInfo.endCursor` });
  }
  return asked;
}
