/**
 * One webhook attempt: `POST url` with the delivery's JSON body and its key in `Idempotency-Key`.
 * A 2xx answer is a delivery; anything else (another status, a refused connection, a timeout, an
 * abort because the sender's lease was lost or the server is stopping) is a failure with a short
 * reason. Never throws.
 */

export interface WebhookRequest {
  readonly url: string;
  readonly key: string;
  readonly payload: string;
  /** 1 for the first attempt; sent as `Tik-Delivery-Attempt`. */
  readonly attempt: number;
}

export type WebhookOutcome = { readonly ok: true; readonly status: number } | { readonly ok: false; readonly error: string };

export type SendWebhook = (req: WebhookRequest, signal: AbortSignal) => Promise<WebhookOutcome>;

/** The real sender over `fetch`; `timeoutMs` bounds one attempt. */
export function httpWebhookSender(timeoutMs: number): SendWebhook {
  return async (req, signal) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const res = await fetch(req.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': req.key,
          'tik-delivery-attempt': String(req.attempt),
          'user-agent': 'tik-effects',
        },
        body: req.payload,
        signal: AbortSignal.any([signal, timeout]),
        redirect: 'manual',
      });
      // drain the body so the connection can be reused; its content is not ours to keep
      await res.arrayBuffer().catch(() => undefined);
      return res.status >= 200 && res.status < 300 ? { ok: true, status: res.status } : { ok: false, error: `HTTP ${res.status}` };
    } catch (e) {
      if (signal.aborted) return { ok: false, error: `aborted: ${signal.reason instanceof Error ? signal.reason.message : 'the sender stopped'}` };
      if (timeout.aborted) return { ok: false, error: `no answer within ${timeoutMs} ms` };
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      return { ok: false, error: cause?.code ?? cause?.message ?? (e as Error).message };
    }
  };
}
