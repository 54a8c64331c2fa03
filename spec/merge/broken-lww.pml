/* BROKEN on purpose: last-writer-wins. The receiver drops an offered event when it already holds
   a newer one (a higher-numbered event). Sets still only grow, but spin must report that the
   replicas do not converge. */
#include "state.pml"

inline receive(s, d, e) {
  if
  :: (set[d] >> (e + 1)) != 0 -> skip
  :: else -> set[d] = set[d] | BIT(e)
  fi
}
#include "processes.pml"
