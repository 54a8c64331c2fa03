import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEdn } from '../../../src/tik/edn/index.js';
import { EdnMap, Instant, Keyword, Uuid, kw } from '../../../src/tik/edn/value.js';
import { TikError } from '../../../src/tik/errors.js';
import { eventSchemaProblems, mintEvent, parentsProblem, parseEvent } from '../../../src/tik/kernel/index.js';
import { CONFORMANCE, body, path } from './builders.js';

const STICKY = join(CONFORMANCE, 'corpus/support-closed-sticky/tickets/018f2f6e-7c1a-7000-8000-00000000c0de/events');
const ticket = new Uuid('018f2f6e-7c1a-7000-8000-00000000c0de');

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof TikError) return e.code;
    throw e;
  }
  return undefined;
}

describe('mint', () => {
  it('reproduces the corpus root event byte for byte (§1.8 #2)', () => {
    const { event, text } = mintEvent({
      ticket,
      type: kw('ticket/create'),
      actor: 'customer',
      at: new Instant(Date.parse('2026-07-08T10:00:00Z')),
      parents: [],
      body: body({
        'ticket/process': kw('support-request'),
        'ticket/process-hash': 'sha256-abf62fe594cceed265dbe2374b7f67ed30778ebd66816cbad41c7422e8bb5f59',
        'ticket/process-version': 1n,
        'ticket/title': 'login broken',
      }),
    });
    const name = 'sha256-ffc504b8f4e28dd627c1b5552dffcdfef0eb661d2146245f791c906bc3f01154';
    expect(event.id).toBe(name);
    expect(text).toBe(readFileSync(join(STICKY, `${name}.edn`), 'utf8'));
    expect(Buffer.byteLength(text)).toBe(366);
  });

  it('reproduces the corpus retract with its reason (§1.8 #4)', () => {
    const { event } = mintEvent({
      ticket,
      type: kw('fact/retract'),
      actor: 'customer',
      at: new Instant(Date.parse('2026-07-08T11:30:00Z')),
      parents: ['sha256-df58c84f402fa003e4935ac1ca502437a82ed39488f1fb9bdf262d07bd797ebc'],
      body: body({ 'fact/path': path('customer.ack'), 'retract/reason': 'misclick' }),
    });
    expect(event.id).toBe('sha256-6424c433deae52149cde7884a7245ba80744399da87ee9cc9f9730f9758bdcee');
    expect(event.parents).toEqual(['sha256-df58c84f402fa003e4935ac1ca502437a82ed39488f1fb9bdf262d07bd797ebc']);
  });

  const base = { ticket, actor: 'seb', at: new Instant(1), parents: ['sha256-p'] };

  it('refuses an unknown event type (event/invalid)', () => {
    expect(codeOf(() => mintEvent({ ...base, type: kw('fact/guess'), body: body({}) }))).toBe('event/invalid');
  });

  it('refuses an assert without a path (event/invalid)', () => {
    expect(codeOf(() => mintEvent({ ...base, type: kw('fact/assert'), body: body({ 'fact/value': 1n }) }))).toBe('event/invalid');
  });

  it('refuses a dispute without :dispute/reason, but accepts a nil one', () => {
    expect(codeOf(() => mintEvent({ ...base, type: kw('fact/dispute'), body: body({ 'fact/path': path('a') }) }))).toBe('event/invalid');
    expect(mintEvent({ ...base, type: kw('fact/dispute'), body: body({ 'fact/path': path('a'), 'dispute/reason': null }) }).text).toContain(
      ':dispute/reason nil',
    );
  });

  it('refuses a keyword that cannot be read back (event/unwritable)', () => {
    const bad = Keyword.of('has space');
    expect(codeOf(() => mintEvent({ ...base, type: kw('fact/assert'), body: body({ 'fact/path': path('a'), 'fact/value': bad }) }))).toBe(
      'event/unwritable',
    );
  });

  it('refuses a create with parents and a non-create without (event/parents)', () => {
    expect(
      codeOf(() =>
        mintEvent({ ...base, type: kw('ticket/create'), body: body({ 'ticket/title': 't', 'ticket/process': kw('p') }) }),
      ),
    ).toBe('event/parents');
    expect(codeOf(() => mintEvent({ ...base, parents: [], type: kw('fact/assert'), body: body({ 'fact/path': path('a'), 'fact/value': 1n }) }))).toBe(
      'event/parents',
    );
  });

  it('sorts and dedupes parents in the event value', () => {
    const { event } = mintEvent({ ...base, parents: ['sha256-b', 'sha256-a', 'sha256-b'], type: kw('fact/assert'), body: body({ 'fact/path': path('a'), 'fact/value': 1n }) });
    expect(event.parents).toEqual(['sha256-a', 'sha256-b']);
  });
});

describe('parseEvent', () => {
  it('parses every corpus event and finds no schema problems', () => {
    for (const c of readdirSync(join(CONFORMANCE, 'corpus'))) {
      const tdir = join(CONFORMANCE, 'corpus', c, 'tickets');
      for (const t of readdirSync(tdir)) {
        for (const f of readdirSync(join(tdir, t, 'events'))) {
          const e = parseEvent(readFileSync(join(tdir, t, 'events', f), 'utf8'), f.replace(/\.edn$/, ''));
          expect(eventSchemaProblems(e.map)).toEqual([]);
          expect(parentsProblem(e.map)).toBeUndefined();
        }
      }
    }
  });

  it('names the position of a reader error (event/malformed)', () => {
    try {
      parseEvent('{:event/type :fact/assert\n :event/at #inst "nope"}', 'sha256-x', 'events/sha256-x.edn');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(TikError);
      expect((e as TikError).code).toBe('event/malformed');
      expect((e as TikError).where).toBe('events/sha256-x.edn');
      expect((e as TikError).position?.line).toBe(2);
    }
  });

  it('rejects a non-map, a missing instant, a missing type and a stored :event/id', () => {
    expect(codeOf(() => parseEvent('[1 2]', 'sha256-x'))).toBe('event/malformed');
    expect(codeOf(() => parseEvent('{:event/type :fact/assert :event/ticket #uuid "018f2f6e-7c1a-7000-8000-00000000c0de"}', 'sha256-x'))).toBe('event/malformed');
    expect(codeOf(() => parseEvent('{:event/at #inst "2026-01-01T00:00:00Z" :event/ticket #uuid "018f2f6e-7c1a-7000-8000-00000000c0de"}', 'sha256-x'))).toBe(
      'event/malformed',
    );
    expect(
      codeOf(() =>
        parseEvent(
          '{:event/id "sha256-x" :event/type :a/b :event/at #inst "2026-01-01T00:00:00Z" :event/ticket #uuid "018f2f6e-7c1a-7000-8000-00000000c0de"}',
          'sha256-x',
        ),
      ),
    ).toBe('event/malformed');
  });

  it('admits an unknown type (the reducer ignores it) while the schema check reports it', () => {
    const e = parseEvent(
      '{:event/actor "x" :event/at #inst "2026-01-01T00:00:00Z" :event/parents #{"sha256-a"} :event/ticket #uuid "018f2f6e-7c1a-7000-8000-00000000c0de" :event/type :future/thing}',
      'sha256-x',
    );
    expect(e.type).toBe(kw('future/thing'));
    expect(e.body).toBeInstanceOf(EdnMap);
    expect(eventSchemaProblems(e.map).join(' ')).toContain(':future/thing');
  });

  it('treats a non-collection parents value as none', () => {
    const e = parseEvent(
      '{:event/actor "x" :event/at #inst "2026-01-01T00:00:00Z" :event/parents "sha256-a" :event/ticket #uuid "018f2f6e-7c1a-7000-8000-00000000c0de" :event/type :fact/assert}',
      'sha256-x',
    );
    expect(e.parents).toEqual([]);
    expect(eventSchemaProblems(e.map).length).toBeGreaterThan(0);
  });

  it('round-trips a minted event through its text', () => {
    const { event, text } = mintEvent({ ticket, type: kw('attestation/add'), actor: 'ci', at: new Instant(5), parents: ['sha256-a'], body: body({ claim: kw('sbom') }) });
    const back = parseEvent(text, event.id);
    expect(back.map).toEqual(readEdn(text));
    expect(back.at.ms).toBe(5);
  });
});
