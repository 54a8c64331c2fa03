import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emit, readEdn } from '../../../src/tik/edn/index.js';
import { EdnMap, Instant, Uuid, kw, type EdnValue } from '../../../src/tik/edn/value.js';
import { mintEvent } from '../../../src/tik/kernel/index.js';
import { FileStore } from '../../../src/tik/store/file/file-store.js';
import { sha256Id } from '../../../src/tik/store/store-names.js';
import { encodeBundle } from '../../../src/tik/sync/index.js';
import { SyncResponder } from '../../../src/tik/sync/responder.js';
import { cleanup, json, supportStore, tik } from '../cli/harness.js';
import { ednMapOf } from '../sync/edn-helpers.js';

// Issue 13: an anonymous push of an unsigned :process/migrate, with the pusher's own definition in
// the same bundle, moved a ticket and `tik verify` passed. The definition is hash-true, so
// admission stores it; verify now says what it must: the migrate is unsigned (L1 note) and it
// re-pins the ticket onto another process's definition (L2 problem: verify fails).

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

describe('verify reports a hostile migration', () => {
  it('an unsigned migrate onto a foreign definition fails L2 and is named in L1', async () => {
    const root = await supportStore();
    dirs.push(root);
    const { ticket, event } = json<{ ticket: string; event: string }>(await tik(root, ['new', 'support-request', '--json']));
    expect((await tik(root, ['verify'])).code).toBe(0);
    const def = readEdn(readFileSync(join(root, 'processes/support-request.edn'), 'utf8')) as EdnMap;
    const mine = EdnMap.fromKeyed([...def.textEntries()].map(([t, k, v]): readonly [string, EdnValue, EdnValue] => [t, k, t === ':process/id' ? kw('mine') : v]));
    const text = emit(mine);
    const m = mintEvent({ ticket: new Uuid(ticket), type: kw('process/migrate'), actor: 'mallory', at: new Instant(Date.parse('2026-07-08T11:00:00Z')), parents: [event], body: ednMapOf({ 'process/version': 1n, 'process/hash': sha256Id(Buffer.from(text, 'utf8')) }) });
    const r = await new SyncResponder(new FileStore(root)).push(encodeBundle({ processes: [text], blobs: [], sidecars: [], events: [{ ticket, id: m.event.id, bytes: Buffer.from(m.text, 'utf8') }] }));
    expect(r.stored).toBe(1);
    const v = await tik(root, ['verify', '--json']);
    expect(v.code).not.toBe(0);
    const report = JSON.parse(v.stdout) as { tickets: { levels: Record<string, { problems: { code: string }[]; notes: { code: string }[] }> }[] };
    const levels = report.tickets[0]!.levels;
    expect(levels.L2!.problems.map((p) => p.code)).toContain('L2/migrate-foreign-process');
    expect(levels.L1!.notes.map((p) => p.code)).toContain('L1/unsigned-migrate');
  });
});
