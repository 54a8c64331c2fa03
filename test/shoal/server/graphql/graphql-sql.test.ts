/**
 * `where` → SQL predicate: a comparison that names no value (an explicit null, or a variable the
 * request did not set) is refused, never read as "no filter", and nesting is capped here, with a
 * GraphQL error, before the SQL parser would refuse text the client never wrote.
 */
import { describe, expect, it } from 'vitest';
import { ShoalError } from '../../../../src/shoal/errors.js';
import { GRAPHQL_BOUNDS } from '../../../../src/shoal/server/graphql/graphql-bounds.js';
import { type BoolExp, type FieldColumn, Params, wherePredicate } from '../../../../src/shoal/server/graphql/graphql-sql.js';

const columns = new Map<string, FieldColumn>([
  ['id', { column: 'id', declared: 'integer' }],
  ['name', { column: 'name', declared: 'varchar' }],
]);

const codeOf = (where: BoolExp): string | undefined => {
  try {
    wherePredicate(where, columns, new Params());
    return undefined;
  } catch (e) {
    return e instanceof ShoalError ? e.code : 'not a ShoalError';
  }
};

describe('wherePredicate', () => {
  it('refuses a null operand and a comparison left empty by an unset variable', () => {
    expect(codeOf({ name: { eq: null } })).toBe('GRAPHQL_INVALID');
    expect(codeOf({ id: { in: null } })).toBe('GRAPHQL_INVALID');
    // `{name: {eq: $v}}` with $v unset reaches the resolver as `{name: {}}`
    expect(codeOf({ name: {} })).toBe('GRAPHQL_INVALID');
    expect(codeOf({ not: { name: {} } })).toBe('GRAPHQL_INVALID');
    expect(codeOf({ name: null })).toBe('GRAPHQL_INVALID');
    // isNull is how a NULL is asked for
    expect(wherePredicate({ name: { isNull: true } }, columns, new Params())).toBe('"name" IS NULL');
    expect(wherePredicate({ id: { eq: 5 } }, columns, new Params())).toContain('"id" = CAST(');
  });

  it(`refuses and/or/not nested more than GRAPHQL_BOUNDS.maxWhereDepth deep, before any SQL is written`, () => {
    const nest = (n: number): BoolExp => (n === 0 ? { id: { eq: 1 } } : n % 2 ? { not: nest(n - 1) } : { and: [nest(n - 1)] });
    expect(wherePredicate(nest(GRAPHQL_BOUNDS.maxWhereDepth), columns, new Params())).toContain('NOT (');
    expect(codeOf(nest(GRAPHQL_BOUNDS.maxWhereDepth + 1))).toBe('GRAPHQL_TOO_COMPLEX');
    expect(codeOf(nest(16))).toBe('GRAPHQL_TOO_COMPLEX');
  });
});
