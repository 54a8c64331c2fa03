import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emit, ednMap, ednSet } from '../../../src/tik/edn/index.js';
import { Instant, Keyword, Uuid } from '../../../src/tik/edn/value.js';
import { cleanup, json, snapshot, supportStore, tik } from './harness.js';

// Data from elsewhere (another implementation, a newer version): an unknown event type is kept,
// hashed and parent-indexed but ignored by the reducer (§2.4); reads work, verify's L0 flags it.

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});

describe('an event of an unknown type', () => {
  it('is admitted by reads (log shows it, status ignores it) and refused by verify L0', async () => {
    const d = await supportStore();
    dirs.push(d);
    const id = (await tik(d, ['new', 'support-request'])).stdout.trim();
    const head = (await tik(d, ['set', id, 'category=technical'])).stdout.split(' ')[0]!;
    const k = Keyword.of;
    const text = emit(
      ednMap([
        [k('event/ticket'), new Uuid(id)],
        [k('event/type'), k('custom/thing')],
        [k('event/actor'), 'future-tik'],
        [k('event/at'), new Instant(Date.UTC(2026, 6, 8, 11))],
        [k('event/parents'), ednSet([head])],
        [k('event/body'), ednMap([[k('whatever'), 1n]])],
      ]),
    );
    const foreign = `sha256-${createHash('sha256').update(text).digest('hex')}`;
    writeFileSync(join(d, 'tickets', id, 'events', `${foreign}.edn`), text);
    const before = snapshot(d);

    const log = json<{ id: string; type: string }[]>(await tik(d, ['log', id, '--json']));
    expect(log.map((e) => e.type)).toEqual([':ticket/create', ':fact/assert', ':custom/thing']);
    const s = json<{ reached: string[]; facts: Record<string, unknown> }>(await tik(d, ['status', id, '--json']));
    expect(s.reached).toEqual([':received']);
    expect(Object.keys(s.facts)).toEqual(['category']);

    // A new write builds on it: the foreign event is a head, so it becomes a parent.
    const next = await tik(d, ['set', id, 'severity=high', '--json']);
    const written = JSON.parse(next.stdout) as { events: { id: string }[] };
    const after = json<{ id: string; parents: string[] }[]>(await tik(d, ['log', id, '--json']));
    expect(after.find((e) => e.id === written.events[0]!.id)!.parents).toEqual([foreign]);

    const v = await tik(d, ['verify', '--json']);
    expect(v.code).toBe(1);
    expect(JSON.parse(v.stdout).tickets[0].levels.L0.ok).toBe(false);
    // the one file written is the event (beside disposable derived data: the status cache)
    const stored = (snap: Record<string, string>): string[] => Object.keys(snap).filter((f) => !f.startsWith('.tik-index'));
    expect(stored(snapshot(d)).length).toBe(stored(before).length + 1);
  });
});
