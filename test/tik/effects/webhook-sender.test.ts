import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { httpWebhookSender } from '../../../src/tik/effects/index.js';
import { startReceiver, type Receiver } from './effects-fixture.js';

describe('webhook sender', () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());

  const req = (path: string) => ({ url: `${receiver.url}${path}`, key: 'k'.repeat(64), payload: '{"a":1}', attempt: 3 });

  it('POSTs the payload with Idempotency-Key and the attempt number; 2xx is a delivery', async () => {
    receiver.answer = () => 204;
    expect(await httpWebhookSender(5_000)(req('/ok'), new AbortController().signal)).toEqual({ ok: true, status: 204 });
    expect(receiver.received).toEqual([{ path: '/ok', key: 'k'.repeat(64), attempt: '3', body: { a: 1 } }]);
  });

  it('any other status is a failure naming it, redirects included (they are not followed)', async () => {
    for (const status of [500, 404, 302]) {
      receiver.answer = () => status;
      expect(await httpWebhookSender(5_000)(req('/x'), new AbortController().signal)).toEqual({ ok: false, error: `HTTP ${status}` });
    }
  });

  it('an abort (lease lost, server stopping) ends a request that never gets an answer, saying why', async () => {
    receiver.answer = () => 'hold';
    const c = new AbortController();
    const pending = httpWebhookSender(60_000)(req('/hang'), c.signal);
    await receiver.waitFor(1);
    c.abort(new Error('the lease on default (epoch 3) was lost'));
    expect(await pending).toEqual({ ok: false, error: 'aborted: the lease on default (epoch 3) was lost' });
  });

  it('no answer within the time limit is a failure', async () => {
    receiver.answer = () => 'hold';
    expect(await httpWebhookSender(200)(req('/slow'), new AbortController().signal)).toEqual({ ok: false, error: 'no answer within 200 ms' });
  });
});
