/**
 * The tik write load of the fleet chaos test and bench/fleet: as two actors (alice, bob), a new
 * `support-request` ticket in every 3 requests, else a fact on one of the `seeded` tickets. The
 * ticket/event-id of every acknowledged write goes into `acked`, to be looked up afterwards on
 * every replica; a 5xx or a network error is a refused write, any other non-200 a wrong answer.
 */
import type { LoadRequest } from './fleet-chaos.js';

export function tikWrites(seeded: readonly string[], acked: Set<string>): (n: number) => LoadRequest {
  return (n) => {
    const actor = n % 2 === 0 ? 'alice' : 'bob';
    if (n % 3 === 0) {
      return {
        method: 'POST',
        path: '/api/tickets',
        body: JSON.stringify({ process: 'support-request', title: `load ${n}`, actor }),
        check: (status, body) => {
          if (status >= 500) return 'error';
          if (status !== 200) return 'wrong';
          const b = JSON.parse(body) as { ticket: string; event: string };
          acked.add(`${b.ticket}/${b.event}`);
          return 'ok';
        },
      };
    }
    const ticket = seeded[n % seeded.length]!;
    return {
      method: 'POST',
      path: `/api/tickets/${ticket}/facts`,
      body: JSON.stringify({ facts: [{ key: 'note', value: `"write ${n}"` }], actor }),
      check: (status, body) => {
        if (status >= 500) return 'error';
        if (status !== 200) return 'wrong';
        for (const e of (JSON.parse(body) as { events: { id: string }[] }).events) acked.add(`${ticket}/${e.id}`);
        return 'ok';
      },
    };
  };
}
