import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE, json, scratchDirs, snapshot, tik } from '../cli/harness.js';

/**
 * Law T5 for `tik probe`, as a property: whatever a probe prints and whatever instant it is
 * dated at, two stores holding the same log write byte-identical events for it, whatever else
 * they hold (the sweep's order and company do not enter the bytes) and whenever they run.
 */
const scratch = scratchDirs();

const segment = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
const valueText = fc.oneof(
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
  segment.map((s) => `:${s}`),
  fc.string({ maxLength: 20 }).map((s) => JSON.stringify(s.replace(/[\n\r\\]/g, ''))),
);
const output = fc.array(fc.tuple(fc.array(segment, { minLength: 1, maxLength: 2 }), valueText), { minLength: 1, maxLength: 5 });
const instant = fc.integer({ min: Date.parse('2026-07-08T10:00:00Z'), max: Date.parse('2030-01-01T00:00:00Z') }).map((ms) => new Date(ms).toISOString());

async function trackStore(): Promise<string> {
  const d = scratch.dir('tik-probe-prop-');
  await tik(d, ['init']);
  copyFileSync(join(CONFORMANCE, 'processes/track.edn'), join(d, 'processes/track.edn'));
  mkdirSync(join(d, 'widget'));
  return d;
}

describe('tik probe determinism (property)', () => {
  it('same log, output and instant: byte-identical events and the same report on every store', async () => {
    await fc.assert(
      fc.asyncProperty(output, instant, async (lines, at) => {
        const a = await trackStore();
        const id = (await tik(a, ['new', 'track'])).stdout.trim();
        await tik(a, ['set', id, 'repo=widget']);
        const b = await trackStore();
        // b has other tickets too, probed in the same sweep, and its clock reads another time
        for (const other of ['first', 'second']) {
          const o = (await tik(b, ['new', 'track', '--title', other])).stdout.trim();
          await tik(b, ['set', o, 'repo=widget']);
        }
        await tik(b, ['import', a]);
        const text = lines.map(([path, v]) => `${path.join('.')}=${v}`).join('\n');
        for (const d of [a, b]) writeFileSync(join(d, 'widget', 'out.txt'), `${text}\n`);
        const env = { PATH: process.env.PATH, TIK_ACTOR: 'tik-backend' };
        const ra = json<{ tickets: { ticket: string }[] }>(await tik(a, ['probe', '--command', 'cat out.txt', '--at', at, '--json'], { ...env, TIK_NOW: '2026-07-08T10:00:00Z' }));
        const rb = json<{ tickets: { ticket: string }[] }>(await tik(b, ['probe', '--command', 'cat out.txt', '--at', at, '--json'], { ...env, TIK_NOW: '2031-01-01T00:00:00Z' }));
        expect(rb.tickets.find((t) => t.ticket === id)).toEqual(ra.tickets[0]);
        expect(snapshot(join(b, 'tickets', id))).toEqual(snapshot(join(a, 'tickets', id)));
      }),
      { numRuns: 8 },
    );
  }, 120_000);
});
