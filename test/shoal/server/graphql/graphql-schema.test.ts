/**
 * Generated names never collide: a table whose name is another table's name plus a generated
 * suffix (`a.b_c_sum` next to `a_b.c`, whose sum type is `a_b_c_sum`) gets a name of its own, and
 * both tables are in the schema.
 */
import { describe, expect, it } from 'vitest';
import type { RoleGraphTable } from '../../../../src/shoal/sql/role-graph.js';
import { buildGraphSchema } from '../../../../src/shoal/server/graphql/graphql-schema.js';

const table = (schema: string, name: string): RoleGraphTable => ({
  table: `${schema}.${name}`,
  schema,
  name,
  columns: [{ name: 'n', type: 'integer', masked: false }],
  key: ['n'],
  relationships: [],
});

describe('buildGraphSchema names', () => {
  it.each([
    ['a table named like another one’s generated type, first', [table('a', 'b_c_sum'), table('a_b', 'c')]],
    ['the same, second', [table('a_b', 'c'), table('a', 'b_c_sum')]],
    ['a table named like a comparison type', [table('Int', 'comparison'), table('a', 'b')]],
  ])('%s: every table is in the schema', (_, tables) => {
    const schema = buildGraphSchema(tables);
    const roots = Object.keys(schema.getQueryType()!.getFields());
    expect(roots).toHaveLength(tables.length * 2);
    expect(new Set(roots).size).toBe(roots.length);
  });
});
