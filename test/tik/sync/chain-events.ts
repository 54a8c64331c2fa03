// A ticket's history for sync tests: a create, then a chain of asserts, one second apart.
import { mintEvent } from '../../../src/tik/kernel/index.js';
import { Instant, Uuid, ednMapOf, kw } from './edn-helpers.js';

/** `n` chained events of `ticket` from `t0` (`process`: the create's :ticket/process), in order. */
export function chainEvents(ticket: string, n: number, { process = 'p', t0 = Date.parse('2026-07-01T00:00:00Z') } = {}): { id: string; bytes: Buffer }[] {
  const out: { id: string; bytes: Buffer }[] = [];
  for (let i = 0; i < n; i++) {
    const m = mintEvent({
      ticket: new Uuid(ticket),
      type: kw(i === 0 ? 'ticket/create' : 'fact/assert'),
      actor: 'seb',
      at: new Instant(t0 + i * 1000),
      parents: i === 0 ? [] : [out[i - 1]!.id],
      body: i === 0 ? ednMapOf({ 'ticket/title': 't', 'ticket/process': kw(process) }) : ednMapOf({ 'fact/path': [kw('n')], 'fact/value': BigInt(i) }),
    });
    out.push({ id: m.event.id, bytes: Buffer.from(m.text) });
  }
  return out;
}
