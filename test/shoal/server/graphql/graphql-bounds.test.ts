/**
 * The depth/width bounds over fragments: a fragment spread many times is measured once, so a
 * query whose fragments double at every level costs a walk linear in its text, and one whose
 * expansion passes a bound is refused as soon as it does (no timing: the walk counts its visits).
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ShoalError } from '../../../../src/shoal/errors.js';
import { GRAPHQL_BOUNDS, checkBounds } from '../../../../src/shoal/server/graphql/graphql-bounds.js';

/** `query { ...F0 } fragment F0 on Query { ...F1 ...F1 } … fragment F<levels> on Query { sales_t { nodes { id } } }` */
function doubling(levels: number): string {
  const frags = Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
  return `query { ...F0 } ${frags.join(' ')} fragment F${levels} on Query { sales_t { nodes { id } } }`;
}

describe('checkBounds', () => {
  it('measures each fragment once: visits grow with the text, not with the expansion', () => {
    // 2^6 copies of 3 fields = 192 fields expanded: admitted, and measured in a handful of visits
    const report = checkBounds(parse(doubling(6)), undefined);
    expect(report).toMatchObject({ fields: 192, depth: 3 });
    // the text holds 1 + 2 × 6 + 1 selections (and 2 nested fields): each visited once
    expect(report!.visited).toBeLessThanOrEqual(20);
  });

  it('refuses a doubling of 40 levels as too complex, after a walk linear in the text', () => {
    let thrown: unknown;
    try {
      checkBounds(parse(doubling(40)), undefined);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ShoalError);
    expect((thrown as ShoalError).code).toBe('GRAPHQL_TOO_COMPLEX');
    expect((thrown as ShoalError).message).toContain(`more than ${GRAPHQL_BOUNDS.maxFields} fields`);
    expect((thrown as ShoalError).hint).toMatch(/fragment/);
  });

  it('counts depth through fragments spread at different depths', () => {
    const deep = `query { a { ...D } b { c { d { e { f { g { h { i { j { ...D } } } } } } } } } } fragment D on T { x { y } }`;
    expect(() => checkBounds(parse(deep), undefined)).toThrow(/more than 10 fields deep/);
    expect(checkBounds(parse(`query { a { ...D } b { ...D } } fragment D on T { x { y } }`), undefined)).toMatchObject({ fields: 6, depth: 3 });
  });
});
