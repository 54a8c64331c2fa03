import { describe, expect, it } from 'vitest';
import { abortable } from '../../../../src/shoal/sources/abortable.js';
import { ShoalError } from '../../../../src/shoal/errors.js';

describe('abortable statements', () => {
  it('rejects with QUERY_CANCELLED as soon as the signal aborts, whatever the statement does later', async () => {
    let finish: (v: number) => void = () => undefined;
    const work = new Promise<number>((resolve) => {
      finish = resolve;
    });
    const ac = new AbortController();
    const p = abortable(work, ac.signal, 'src-a');
    ac.abort();
    await expect(p).rejects.toMatchObject({ code: 'QUERY_CANCELLED', where: 'sources.src-a' });
    finish(1);
  });

  it('passes results and errors through when not aborted, and rejects at once if already aborted', async () => {
    expect(await abortable(Promise.resolve(7), new AbortController().signal, 's')).toBe(7);
    await expect(abortable(Promise.reject(new Error('boom')), undefined, 's')).rejects.toThrow('boom');
    const ac = new AbortController();
    ac.abort();
    const late = Promise.reject(new Error('ignored'));
    await expect(abortable(late, ac.signal, 's')).rejects.toBeInstanceOf(ShoalError);
  });
});
