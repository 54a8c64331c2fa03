import { describe, expect, it } from 'vitest';
import { nextPeerHealth, type PeerHealth } from '../../../src/tik/server/peer-health.js';

// Issue 13: a peer that is away is backed off; one that breaks a limit or sends bad data is
// quarantined for longer, doubling on every repeat; a good sync clears both.

const start: PeerHealth = { url: 'http://peer', state: 'new', failures: 0 };
const T = Date.parse('2026-07-01T00:00:00Z');
const wait = (h: PeerHealth): number => Date.parse(h.retryAt!) - T;

describe('peer health', () => {
  it('backs off an unreachable peer, doubling up to 5 minutes', () => {
    let h = start;
    const waits: number[] = [];
    for (let i = 0; i < 12; i++) {
      h = nextPeerHealth(h, T, 10_000, { code: 'sync/unreachable', message: 'down' });
      waits.push(wait(h));
    }
    expect(h.state).toBe('backoff');
    expect(waits.slice(0, 4)).toEqual([20_000, 40_000, 80_000, 160_000]);
    expect(Math.max(...waits)).toBe(300_000);
  });

  it('quarantines a peer that broke a limit, longer each time, and a good sync clears it', () => {
    const once = nextPeerHealth(start, T, 1000, { code: 'sync/peer-limit', message: 'gave up after 2048 rounds' });
    expect([once.state, wait(once), once.lastError?.code]).toEqual(['quarantined', 60_000, 'sync/peer-limit']);
    const twice = nextPeerHealth(once, T, 1000, { code: 'sync/refused', message: 'bad bytes' });
    expect([twice.state, wait(twice), twice.failures]).toEqual(['quarantined', 120_000, 2]);
    let h = twice;
    for (let i = 0; i < 20; i++) h = nextPeerHealth(h, T, 1000, { code: 'sync/peer-limit', message: 'again' });
    expect(wait(h)).toBe(3_600_000);
    const ok = nextPeerHealth(h, T + 1, 1000);
    expect(ok).toEqual({ url: 'http://peer', state: 'ok', failures: 0, lastSyncAt: new Date(T + 1).toISOString() });
  });
});
