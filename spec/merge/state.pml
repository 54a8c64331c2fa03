/*
 * Merge convergence of tik replicas (tik-model.md §8.2, docs/tik-sync.md), for spin.
 *
 * The model is shared by the correct merge (convergence.pml) and the deliberately broken
 * variants (broken-*.pml): each includes this file (constants and state), defines
 * `inline receive(s, d, e)` — what replica d does when a sync from replica s offers it event e —
 * and then includes processes.pml.
 *
 * Replicas are grow-only sets of event ids, one bit per event. Events are numbered in a
 * topological order (a parent's number is below its children's), so "parents before children"
 * is "lowest number first".
 *
 *   replica  one process per replica, in any interleaving with the others: mints its own events
 *            (a child only where its parent is held) and runs SYNCS syncs with any other replica,
 *            pulling, pushing or both. A transfer delivers events one at a time, parents first,
 *            and may be interrupted before any of them (a crash, a dropped connection), leaving
 *            the receiver a subset of the union.
 *   deliver  checks, at every delivery: the receiver's set only grows, stays parent-closed and
 *            holds nothing nobody minted.
 *   final    once quiescent (every replica done), one all-pairs round of complete syncs; then
 *            every set equals the set of every minted event.
 *
 * Spin explores every interleaving (about 430 000 states, a couple of seconds). Run it as
 * test/spec/merge-convergence.test.ts does:
 *   spin -a convergence.pml && cc -DSAFETY -o pan pan.c && ./pan
 */

#define N 3            /* replicas */
#define E 4            /* events */
#ifndef SYNCS
#define SYNCS 1        /* syncs each replica initiates before quiescence */
#endif

#define BIT(e) (1 << (e))
#define HAS(r, e) ((set[r] & BIT(e)) != 0)

byte set[N];           /* replica r's event set */
byte written;          /* every event minted so far, wherever */
byte finished;         /* replicas that are done */

/* event -> origin replica and parent (E = none). e1 is a child of e0 minted at the same replica;
   e3 is a child of e2 minted at another replica, only if a sync brought e2 there first. */
byte origin[E];
byte parent[E];
