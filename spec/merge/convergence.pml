/* The correct merge: a received event is added to the receiver's set (union). Spin must find
   no error: every interleaving converges, sets only grow and stay parent-closed. */
#include "state.pml"

inline receive(s, d, e) {
  set[d] = set[d] | BIT(e)
}
#include "processes.pml"
