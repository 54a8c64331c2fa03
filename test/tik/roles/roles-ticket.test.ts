import { describe, expect, it } from 'vitest';
import { emit, readEdn, Instant, Uuid, kw } from '../../../src/tik/edn/index.js';
import { ednMap } from '../../../src/tik/edn/construct.js';
import { mintEvent, type TikEvent } from '../../../src/tik/kernel/index.js';
import { ROLES_PROCESS, ROLES_TICKET, replicatedRegister, rolesTicketCreate } from '../../../src/tik/roles/roles-ticket.js';

const publish = (parents: readonly string[], register: string, actor: string, ms: number): TikEvent =>
  mintEvent({
    ticket: new Uuid(ROLES_TICKET),
    type: kw('fact/assert'),
    actor,
    at: new Instant(ms),
    parents,
    body: ednMap([
      [kw('fact/path'), [kw('register')]],
      [kw('fact/value'), readEdn(register, 'test')],
    ]),
  }).event;

describe('the replicated roles register', () => {
  it('has one create, the same bytes on every replica, pinned to the built-in definition', () => {
    const [x, y] = [rolesTicketCreate(), rolesTicketCreate()];
    expect(x.text).toBe(y.text);
    expect(x.event.body.get(kw('ticket/process-hash'))).toBe(ROLES_PROCESS.hash);
  });

  it('is absent without a publish, the last publish when one wins, and fails closed on contention', () => {
    const create = rolesTicketCreate().event;
    expect(replicatedRegister([]).status).toBe('absent');
    expect(replicatedRegister([create]).status).toBe('absent');
    const first = publish([create.id], '{:triager {:members ["seb" "ana"]} :billing {:members ["bo"]}}', 'seb', 1000);
    const later = publish([first.id], '{:triager {:members ["ana"]}}', 'ana', 2000);
    const one = replicatedRegister([create, first, later]);
    expect(one.status).toBe('present');
    expect(one.status !== 'absent' && emit(one.register)).toBe('{:triager {:members ["ana"]}}');
    // two replicas publish concurrently on the same parent: neither wins
    const rival = publish([first.id], '{:triager {:members ["ana" "seb" "zed"]} :ops {:members ["x"]}}', 'zed', 2000);
    const both = replicatedRegister([create, first, later, rival]);
    const reversed = replicatedRegister([rival, later, first, create]);
    expect(both.status).toBe('conflicted');
    expect(both.status === 'conflicted' && emit(both.register)).toBe('{:triager {:members ["ana"]}}');
    if (both.status !== 'conflicted' || reversed.status !== 'conflicted') throw new Error('expected contention');
    expect([emit(reversed.register), reversed.events]).toEqual([emit(both.register), both.events]);
    // a later publish that names both heads resolves it
    const merged = publish([later.id, rival.id].sort(), '{:triager {:members ["ana" "zed"]}}', 'seb', 3000);
    const resolved = replicatedRegister([create, first, later, rival, merged]);
    expect(resolved.status).toBe('present');
  });
});
