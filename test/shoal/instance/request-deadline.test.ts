/**
 * The request deadline and the stream wrapper that ends it: `done` runs exactly once whether the
 * stream ends, fails, is abandoned mid-way, or is abandoned before its first batch.
 */
import { describe, expect, it } from 'vitest';
import { ShoalError } from '../../../src/shoal/errors.js';
import { abortError, disposing, requestDeadline } from '../../../src/shoal/instance/request-deadline.js';
import { oneBatch } from '../../../src/shoal/instance/one-batch.js';

async function* batches(n: number, failAt?: number): AsyncGenerator<number> {
  for (let i = 0; i < n; i++) {
    if (i === failAt) throw new Error('boom');
    yield i;
  }
}

describe('disposing', () => {
  it('passes every batch through and calls done once at the end', async () => {
    let done = 0;
    const seen: number[] = [];
    const s = disposing(batches(3), () => done++);
    for await (const b of s) seen.push(b);
    expect(seen).toEqual([0, 1, 2]);
    expect(await s.next()).toEqual({ done: true, value: undefined });
    expect(done).toBe(1);
  });

  it('calls done once when the stream fails, and rethrows', async () => {
    let done = 0;
    const s = disposing(batches(3, 1), () => done++);
    expect(await s.next()).toEqual({ done: false, value: 0 });
    await expect(s.next()).rejects.toThrow('boom');
    expect(await s.next()).toEqual({ done: true, value: undefined });
    expect(done).toBe(1);
  });

  it('ends the inner stream and calls done once when abandoned mid-way', async () => {
    let done = 0;
    let innerFinished = false;
    const inner = (async function* () {
      try {
        yield 1;
        yield 2;
      } finally {
        innerFinished = true;
      }
    })();
    for await (const b of disposing(inner, () => done++)) if (b === 1) break;
    expect(innerFinished).toBe(true);
    expect(done).toBe(1);
  });

  it('calls done when abandoned before the first batch (a response that never started still ends its deadline)', async () => {
    let done = 0;
    const s = disposing(batches(3), () => done++);
    await s.return!();
    await s.return!();
    expect(done).toBe(1);
    expect(await s.next()).toEqual({ done: true, value: undefined });
  });
});

describe('oneBatch', () => {
  it('makes its one batch when first read, and then ends', async () => {
    let made = 0;
    const s = oneBatch(() => ++made);
    expect(made).toBe(0);
    expect(await s.next()).toEqual({ done: false, value: 1 });
    expect(await s.next()).toEqual({ done: true, value: undefined });
    expect(made).toBe(1);
  });

  it('rejects with what making the batch throws, once', async () => {
    const s = oneBatch(() => {
      throw new Error('bad cell');
    });
    await expect(s.next()).rejects.toThrow('bad cell');
    expect(await s.next()).toEqual({ done: true, value: undefined });
  });

  it('never makes the batch when abandoned first', async () => {
    let made = 0;
    const s = oneBatch(() => ++made);
    await s.return!();
    expect(await s.next()).toEqual({ done: true, value: undefined });
    expect(made).toBe(0);
  });
});

describe('requestDeadline', () => {
  it('aborts with QUERY_TIMEOUT when the deadline passes', async () => {
    const d = requestDeadline(new AbortController().signal, 20);
    await new Promise((r) => d.signal.addEventListener('abort', r, { once: true }));
    expect(abortError(d.signal).code).toBe('QUERY_TIMEOUT');
    d.dispose();
  });

  it('aborts with the caller\'s reason when the caller aborts, and not after dispose', async () => {
    const parent = new AbortController();
    const d = requestDeadline(parent.signal, 60_000);
    parent.abort();
    expect(d.signal.aborted).toBe(true);
    expect(abortError(d.signal).code).toBe('QUERY_CANCELLED');
    d.dispose();

    const later = new AbortController();
    const e = requestDeadline(later.signal, 60_000);
    e.dispose();
    later.abort(new ShoalError('QUERY_CANCELLED', 'x'));
    expect(e.signal.aborted).toBe(false);
  });

  it('is itself a cancel signal: its listeners run once, in order, on the deadline; a removed one does not', async () => {
    const d = requestDeadline(new AbortController().signal, 20);
    const calls: string[] = [];
    const removed = () => calls.push('removed');
    d.addEventListener('abort', () => calls.push('a'));
    d.addEventListener('abort', removed);
    d.addEventListener('abort', () => calls.push('b'));
    d.removeEventListener('abort', removed);
    expect(d.aborted).toBe(false);
    await new Promise((r) => d.addEventListener('abort', () => r(undefined)));
    expect(calls).toEqual(['a', 'b']);
    expect(d.aborted).toBe(true);
    expect(abortError(d).code).toBe('QUERY_TIMEOUT');
    // an AbortSignal asked for after the abort is born aborted, with the same reason
    expect(d.signal.aborted).toBe(true);
    expect(d.signal.reason).toBe(d.reason);
    d.addEventListener('abort', () => calls.push('late'));
    expect(calls).toEqual(['a', 'b']);
    d.dispose();
  });

  it('aborts its AbortSignal, made before, and its listeners when the caller aborts', () => {
    const parent = new AbortController();
    const d = requestDeadline(parent.signal, 60_000);
    const signal = d.signal;
    let heard = 0;
    d.addEventListener('abort', () => heard++);
    parent.abort();
    expect(signal.aborted).toBe(true);
    expect(heard).toBe(1);
    expect(abortError(d).code).toBe('QUERY_CANCELLED');
    d.dispose();
  });
});
