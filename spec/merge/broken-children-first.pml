/* BROKEN on purpose: the union is right, but a transfer delivers children before their parents.
   An interrupted sync can then leave a child without its parent; spin must report that a set is
   no longer parent-closed (the partial log tik reports as missingParents, made by sync itself). */
#include "state.pml"

inline receive(s, d, e) {
  set[d] = set[d] | BIT(e)
}
#define CHILDREN_FIRST
#include "processes.pml"
