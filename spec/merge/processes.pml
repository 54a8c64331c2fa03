/* The processes of the merge model; see state.pml. Needs `inline receive(s, d, e)`; a variant
   that defines CHILDREN_FIRST delivers the highest-numbered event first instead. */

/* Replica r mints event e if it holds e's parent (a child is only ever minted on top of its
   parent); otherwise this write does not happen in this run. */
inline mint(r, e) {
  atomic {
    if
    :: parent[e] == E || HAS(r, parent[e]) ->
       set[r] = set[r] | BIT(e);
       written = written | BIT(e)
    :: else -> skip
    fi
  }
}

/* Replica d receives event e from s (the variant's `receive`), checked where it happens: the
   set only grows, stays parent-closed, and holds nothing nobody minted. */
inline deliver(s, d, e) {
  atomic {
    old = set[d];
    receive(s, d, e);
    assert((set[d] & old) == old);                  /* sets only grow */
    assert((set[d] & written) == set[d]);           /* nothing nobody minted */
    k = 0;
    do                                              /* parent-closed */
    :: k < E -> assert(parent[k] == E || !HAS(d, k) || HAS(d, parent[k])); k++
    :: else -> break
    od;
    old = 0; k = 0
  }
}

/* One sync transfer from replica s to replica d. The reconciliation (one atomic read of both
   sets) yields what s holds that d lacks; the events then arrive one at a time, parents first
   (lowest number first), interleaved with everything else. When `interruptible`, the transfer
   may stop before any event (a crash, a dropped connection). Scratch locals are reset after
   use, so equal situations are equal states. The caller declares `byte e, snap, old, k`. */
inline transfer(s, d, interruptible) {
  snap = set[s] & ~set[d];
  do
  :: snap == 0 -> break
  :: snap != 0 ->
     if
     :: atomic {
#ifdef CHILDREN_FIRST
          e = E - 1;                                /* highest number first */
          do
          :: (snap & BIT(e)) == 0 -> e--
          :: else -> break
          od;
#else
          e = 0;                                    /* lowest number (parents) first */
          do
          :: (snap & BIT(e)) == 0 -> e++
          :: else -> break
          od;
#endif
          deliver(s, d, e);
          snap = snap & ~BIT(e);
          e = 0
        }
     :: interruptible -> break                      /* interrupted: the rest never arrives */
     fi
  od;
  snap = 0
}

/* A replica: in any order, mints its own events (lowest number first) and runs SYNCS syncs with
   any other replica — pull, push, or both (`tik sync`, `tik serve --peer`). */
proctype replica(byte me) {
  byte todo, round, peer;
  byte e, snap, old, k;
  d_step {
    e = 0;
    do
    :: e < E -> if :: origin[e] == me -> todo = todo | BIT(e) :: else -> skip fi; e++
    :: else -> break
    od;
    e = 0
  }
  do
  :: todo != 0 ->
     atomic {
       e = 0;
       do
       :: (todo & BIT(e)) == 0 -> e++
       :: else -> break
       od;
       mint(me, e);
       todo = todo & ~BIT(e);
       e = 0
     }
  :: round < SYNCS ->
     if
     :: peer = (me + 1) % N
     :: peer = (me + 2) % N
     fi;
     if
     :: transfer(peer, me, true)
     :: transfer(me, peer, true)
     :: transfer(peer, me, true); transfer(me, peer, true)
     fi;
     peer = 0;
     round++
  :: todo == 0 && round == SYNCS -> break
  od;
  finished++
}

/* Once quiescent (every write and every sync done): one all-pairs round of complete transfers,
   d pulling from every other s in turn; then every replica holds exactly every minted event. */
active proctype final() {
  byte s, d;
  byte e, snap, old, k;
  finished == N;                                    /* quiescent */
  assert((written & 5) == 5);                       /* e0 and e2 (no parents) were minted */
  d = 0;
  do
  :: d < N ->
     s = 0;
     do
     :: s < N ->
        if
        :: s != d -> transfer(s, d, false)
        :: else -> skip
        fi;
        s++
     :: else -> break
     od;
     d++
  :: else -> break
  od;
  assert(set[0] == written && set[1] == written && set[2] == written)   /* converged */
}

init {
  atomic {
    origin[0] = 0; parent[0] = E;
    origin[1] = 0; parent[1] = 0;
    origin[2] = 1; parent[2] = E;
    origin[3] = 2; parent[3] = 2;
    run replica(0); run replica(1); run replica(2)
  }
}
