/**
 * The fields a selection asks for, through fragments and inline fragments: what a resolver needs to
 * know which columns to read (a superset when `@skip`/`@include` leave one out: reading a column
 * the answer then omits is harmless).
 */
import { type FieldNode, type FragmentDefinitionNode, Kind, type SelectionSetNode } from 'graphql';

export function subfields(fragments: Readonly<Record<string, FragmentDefinitionNode>>, nodes: readonly FieldNode[]): FieldNode[] {
  const out: FieldNode[] = [];
  const walk = (set: SelectionSetNode | undefined, seen: Set<string>): void => {
    for (const s of set?.selections ?? []) {
      if (s.kind === Kind.FIELD) out.push(s);
      else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet, seen);
      else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        walk(fragments[s.name.value]?.selectionSet, seen);
      }
    }
  };
  for (const n of nodes) walk(n.selectionSet, new Set());
  return out;
}
