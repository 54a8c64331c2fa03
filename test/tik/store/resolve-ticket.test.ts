import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveTicket } from '../../../src/tik/store/resolve-ticket.js';

const ids = [
  '018f2f6e-7c1a-7000-8000-00000000c0de',
  '018f2f6e-7c1a-7000-8000-00000000f0fc',
  '2b771ef9-0000-4000-8000-000000000001',
];
const store = { ticketIds: async () => ids };

describe('resolveTicket', () => {
  it('resolves a full id and any unique prefix, case-insensitively', async () => {
    expect(await resolveTicket(store, ids[0]!)).toBe(ids[0]);
    expect(await resolveTicket(store, '2b')).toBe(ids[2]);
    expect(await resolveTicket(store, '018F2F6E-7C1A-7000-8000-00000000C')).toBe(ids[0]);
    expect(await resolveTicket(store, ' 2b771ef9 ')).toBe(ids[2]);
  });

  it('an ambiguous prefix lists its candidates', async () => {
    const err = await resolveTicket(store, '018f').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ticket/ambiguous', hint: 'give more characters of the id' });
    expect((err as Error).message).toBe(`ticket prefix "018f" matches 2 tickets: ${ids[0]}, ${ids[1]}`);
  });

  it('an unknown prefix and a malformed one are clear errors', async () => {
    await expect(resolveTicket(store, 'ffff')).rejects.toMatchObject({ code: 'ticket/unknown', message: 'no ticket matches "ffff"' });
    await expect(resolveTicket(store, '')).rejects.toMatchObject({ code: 'ticket/bad-prefix' });
    await expect(resolveTicket(store, '../x')).rejects.toMatchObject({ code: 'ticket/bad-prefix' });
    await expect(resolveTicket({ ticketIds: async () => [] }, 'ab')).rejects.toMatchObject({
      code: 'ticket/unknown',
      hint: expect.stringMatching(/tik new/),
    });
  });

  it('law: a resolved prefix always names a ticket that starts with it, and is the only one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ids), fc.nat({ max: 36 }), async (id, n) => {
        const prefix = id.slice(0, n + 1);
        const matching = ids.filter((x) => x.startsWith(prefix));
        const got = await resolveTicket(store, prefix).catch((e: { code: string }) => e.code);
        if (matching.length === 1 || ids.includes(prefix)) expect(got).toBe(ids.includes(prefix) ? prefix : matching[0]);
        else expect(got).toBe('ticket/ambiguous');
      }),
    );
  });
});
