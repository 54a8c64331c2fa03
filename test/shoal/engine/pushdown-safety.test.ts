import { describe, expect, it } from 'vitest';
import { pushablePredicates } from '../../../src/shoal/engine/pushdown-safety.js';
import { catalogEntryFor } from '../../../src/shoal/engine/catalog-entry.js';
import type { SimplePredicate } from '../../../src/shoal/sources/simple-predicate.js';

const entry = catalogEntryFor(
  { source_id: 's', domain_id: 'd', table: 't', columns: [{ name: 'placed', data_type: 'date' }, { name: 'name', data_type: 'varchar' }, { name: 'n' }] },
  { id: 's', type: 'mysql' },
);

describe('which predicates a source may evaluate', () => {
  it('keeps comparisons by number, equality/IN/LIKE on text, null tests', () => {
    const keep: SimplePredicate[] = [
      { column: 'n', op: '<', value: 3 },
      { column: 'n', op: '<>', value: 3n },
      { column: 'name', op: '=', value: 'Bolt' },
      { column: 'name', op: 'LIKE', value: 'b%' },
      { column: 'name', op: 'IN', values: ['a', 'b'] },
      { column: 'name', op: 'IS NULL' },
      { column: 'placed', op: '>=', value: '2024-01-01' },
      { column: 'flag', op: '=', value: true },
    ];
    expect(pushablePredicates(entry, keep)).toEqual(keep);
  });

  it('leaves text ranges and text <> to the engine, where a source collation could drop rows', () => {
    const drop: SimplePredicate[] = [
      { column: 'name', op: '<', value: 'b' },
      { column: 'name', op: '<>', value: 'bolt' },
      { column: 'n', op: '>', value: 'x' },
      { column: 'n', op: '<', value: Number.NaN },
      { column: 'flag', op: '<', value: true },
      { column: 'n', op: 'LIKE', value: 5 },
    ];
    expect(pushablePredicates(entry, drop)).toEqual([]);
  });
});
