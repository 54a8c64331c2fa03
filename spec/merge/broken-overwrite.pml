/* BROKEN on purpose: sync overwrites the receiver's set with the sender's instead of taking the
   union. Spin must report a violation (a set shrinks; replicas do not converge). */
#include "state.pml"

inline receive(s, d, e) {
  set[d] = set[s]
}
#include "processes.pml"
