/**
 * A result's wire columns and cell classes: typed from the plan, else from what the route
 * reported; remembered per plan while the route reports the same, made afresh when it does not.
 */
import { describe, expect, it } from 'vitest';
import { directResultColumns, engineResultColumns } from '../../../src/shoal/instance/result-columns.js';
import type { SourceColumn } from '../../../src/shoal/sources/source-driver.js';

const pgCol = (name: string, oid: number, typmod = -1): SourceColumn => ({ driver: 'postgresql', name, oid, typmod });

describe('directResultColumns', () => {
  it('types a column the plan left untyped from the source, and classes each column', () => {
    const plan = [{ name: 'id', type: 'bigint' }, { name: 'x' }, { name: 'amount', type: 'unknown' }];
    const r = directResultColumns(plan, [pgCol('id', 20), pgCol('x', 1700, ((12 << 16) | 2) + 4), pgCol('amount', 701)]);
    expect(r.typed).toEqual([
      { name: 'id', type: 'bigint' },
      { name: 'x', type: 'numeric(12,2)' },
      { name: 'amount', type: 'double precision' },
    ]);
    expect(r.classes).toEqual([{ kind: 'integer' }, { kind: 'decimal', scale: 2 }, { kind: 'float' }]);
  });

  it('answers a repeat of the same plan and metadata from memory, and afresh when the source reports another type', () => {
    const plan = [{ name: 'v' }];
    const first = directResultColumns(plan, [pgCol('v', 23)]);
    expect(directResultColumns(plan, [pgCol('v', 23)])).toBe(first);
    const changed = directResultColumns(plan, [pgCol('v', 25)]);
    expect(changed.typed).toEqual([{ name: 'v', type: 'text' }]);
    expect(changed.classes).toEqual([{ kind: 'other' }]);
    // another plan with equal columns is its own entry
    expect(directResultColumns([{ name: 'v' }], [pgCol('v', 25)])).not.toBe(changed);
  });
});

describe('engineResultColumns', () => {
  it('types from the engine when the plan cannot, tells an empty result from a changed one, and remembers per plan', () => {
    const plan = [{ name: 'n' }];
    const empty = engineResultColumns(plan, undefined);
    expect(empty.typed).toEqual([{ name: 'n', type: 'unknown' }]);
    const big = engineResultColumns(plan, [{ name: 'n', type: 'BIGINT' }]);
    expect(big.typed).toEqual([{ name: 'n', type: 'bigint' }]);
    expect(big.classes).toEqual([{ kind: 'integer' }]);
    expect(engineResultColumns(plan, [{ name: 'n', type: 'BIGINT' }])).toBe(big);
    expect(engineResultColumns(plan, [{ name: 'n', type: 'DOUBLE' }]).classes).toEqual([{ kind: 'float' }]);
  });
});
