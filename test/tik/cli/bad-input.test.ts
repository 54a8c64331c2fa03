import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, eventFiles, snapshot, supportStore, tik } from './harness.js';

// Bad input never crashes and never writes: each case is a clear error naming the file or the
// argument, a non-zero exit, no stack trace, and the store's files unchanged.

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});

async function storeWithTicket(): Promise<{ d: string; id: string }> {
  const d = await supportStore();
  dirs.push(d);
  const id = (await tik(d, ['new', 'support-request', '--title', 't'])).stdout.trim();
  await tik(d, ['set', id, 'category=technical']);
  return { d, id };
}

/** Run a command that must fail without writing anything; returns stderr. */
async function refuses(d: string, args: string[], code: number, env: Record<string, string | undefined> = {}): Promise<string> {
  const before = snapshot(d);
  const r = await tik(d, args, env);
  expect(r.code, r.stderr).toBe(code);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  expect(r.stderr).not.toMatch(/internal error/);
  expect(snapshot(d)).toEqual(before);
  return r.stderr;
}

describe('bad input never crashes and never writes', () => {
  it('an unknown ticket prefix', async () => {
    const { d } = await storeWithTicket();
    const err = await refuses(d, ['set', 'ffff', 'a=1'], 1);
    expect(err).toMatch(/ticket\/unknown: no ticket matches "ffff"/);
  });

  it('an ambiguous ticket prefix lists the candidates', async () => {
    const { d, id } = await storeWithTicket();
    const other = (await tik(d, ['new', 'support-request'])).stdout.trim();
    const common = id.slice(0, [...id].findIndex((c, i) => c !== other[i]));
    const err = await refuses(d, ['status', common], 1);
    expect(err).toMatch(/ticket\/ambiguous/);
    expect(err).toContain(id);
    expect(err).toContain(other);
  });

  it('a malformed event file is named, for reads and writes', async () => {
    const { d, id } = await storeWithTicket();
    const name = 'sha256-' + '0'.repeat(64);
    const bad = '{:event/type :fact/assert';
    // Give the malformed file a name that matches its bytes, so the reader (not the hash check) trips.
    const { createHash } = await import('node:crypto');
    const real = `sha256-${createHash('sha256').update(bad).digest('hex')}`;
    writeFileSync(join(d, 'tickets', id, 'events', `${real}.edn`), bad);
    expect(name).not.toBe(real);
    for (const args of [['status', id], ['set', id, 'severity=high'], ['log', id, '--json']]) {
      const err = await refuses(d, args, 1);
      expect(err).toContain(`${real}.edn`);
      expect(err).toMatch(/edn\/malformed|event\/malformed/);
    }
  });

  it('bytes that do not hash to the file name', async () => {
    const { d, id } = await storeWithTicket();
    const [first] = eventFiles(d, id);
    const file = join(d, 'tickets', id, 'events', first!);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"seb"', '"eve"'));
    const err = await refuses(d, ['set', id, 'severity=high'], 1);
    expect(err).toMatch(/hash-mismatch/);
    expect(err).toContain(first!);
    expect(await refuses(d, ['status', id, '--json'], 1)).toContain(first!);
  });

  it('a renamed event file', async () => {
    const { d, id } = await storeWithTicket();
    const [first] = eventFiles(d, id);
    const dir = join(d, 'tickets', id, 'events');
    renameSync(join(dir, first!), join(dir, `sha256-${'a'.repeat(64)}.edn`));
    expect(await refuses(d, ['status', id], 1)).toMatch(/hash-mismatch/);
  });

  it('an unknown guard operator in the pinned definition', async () => {
    const d = await supportStore();
    dirs.push(d);
    writeFileSync(
      join(d, 'processes/weird.edn'),
      '{:process/id :weird :process/version 1 :process/stages [{:stage/id :a :hint "h" :guards [[:frobnicate [:x]]]}]}',
    );
    const err = await refuses(d, ['new', 'weird'], 1);
    expect(err).toMatch(/lint/);
    expect(err).toMatch(/frobnicate/);
    expect(err).toContain('processes/weird.edn');
  });

  it('a definition that fails lint is refused by new', async () => {
    const d = await supportStore();
    dirs.push(d);
    writeFileSync(
      join(d, 'processes/cyclic.edn'),
      '{:process/id :cyclic :process/version 1 :process/stages [{:stage/id :a :after [:b] :hint "h"} {:stage/id :b :after [:a] :hint "h"}]}',
    );
    const err = await refuses(d, ['new', 'cyclic'], 1);
    expect(err).toMatch(/process\/lint: processes\/cyclic.edn fails lint/);
  });

  it('a definition that is not valid EDN', async () => {
    const d = await supportStore();
    dirs.push(d);
    writeFileSync(join(d, 'processes/broken.edn'), '{:process/id :broken :process/version');
    const err = await refuses(d, ['new', 'broken'], 1);
    expect(err).toMatch(/edn\/malformed/);
    expect(err).toMatch(/processes\/broken.edn/);
    expect(err).toMatch(/line \d+, column \d+/);
    expect(await refuses(d, ['lint', 'processes/broken.edn'], 1)).toMatch(/processes\/broken.edn/);
  });

  it('an unknown process name lists the known ones', async () => {
    const d = await supportStore();
    dirs.push(d);
    expect(await refuses(d, ['new', 'nope'], 1)).toMatch(/known processes: support-request/);
  });

  it('unknown flags and verbs are usage errors (exit 2)', async () => {
    const { d, id } = await storeWithTicket();
    expect(await refuses(d, ['status', id, '--bogus'], 2)).toMatch(/unknown option '--bogus'/);
    expect(await refuses(d, ['frobnicate'], 2)).toMatch(/unknown command/);
    expect(await refuses(d, ['set', id], 2)).toMatch(/missing required argument/);
    expect(await refuses(d, ['attach', id, 'x', '--derived-from', 'y'], 2)).toMatch(/unknown option/);
  });

  it('malformed assignments, keys and instants are usage errors naming the argument', async () => {
    const { d, id } = await storeWithTicket();
    expect(await refuses(d, ['set', id, 'novalue'], 2)).toMatch(/"novalue" is not a key=value/);
    expect(await refuses(d, ['set', id, 'a..b=1'], 2)).toMatch(/not a dotted key/);
    expect(await refuses(d, ['set', id, 'ok=1', 'has space=1'], 2)).toMatch(/not a keyword name/);
    expect(await refuses(d, ['status', id, '--at', 'yesterday'], 2)).toMatch(/--at: "yesterday" is not an instant/);
    expect(await refuses(d, ['status', id], 2, { TIK_NOW: 'soon' })).toMatch(/TIK_NOW/);
    expect(await refuses(d, ['retract', id, '.x'], 2)).toMatch(/dotted key/);
  });

  it('a value EDN cannot carry canonically (a float) is kept as a string, never a float', async () => {
    const { d, id } = await storeWithTicket();
    expect((await tik(d, ['set', id, 'b=1.5'])).code).toBe(0);
    const s = JSON.parse((await tik(d, ['status', id, '--json'])).stdout) as { facts: Record<string, { value: string }> };
    expect(s.facts.b!.value).toBe('"1.5"');
  });

  it('a later assignment that is malformed stops the whole set before the first event is written', async () => {
    const { d, id } = await storeWithTicket();
    expect(await refuses(d, ['set', id, 'a=1', 'b.=2'], 2)).toMatch(/"b\."/);
  });

  it('attach of a missing file and attest with a bad body', async () => {
    const { d, id } = await storeWithTicket();
    expect(await refuses(d, ['attach', id, 'no-such-file'], 1)).toMatch(/cannot read no-such-file/);
    expect(await refuses(d, ['attest', id, ':x', '--body', '{:a'], 2)).toMatch(/--body/);
    expect(await refuses(d, ['attest', id, ':x', '--body', '[1]'], 2)).toMatch(/--body must be an EDN map/);
  });

  it('a malformed roles.edn is named', async () => {
    const { d, id } = await storeWithTicket();
    writeFileSync(join(d, 'roles.edn'), '{:triager {:members ["seb"]');
    expect(await refuses(d, ['status', id], 1)).toMatch(/roles.edn/);
    writeFileSync(join(d, 'roles.edn'), '[:triager]');
    expect(await refuses(d, ['status', id], 1)).toMatch(/roles.edn is not a map/);
  });

  it('no store at all', async () => {
    const d = await supportStore();
    dirs.push(d);
    const empty = join(d, 'elsewhere');
    mkdirSync(empty);
    const err = await refuses(empty, ['status', 'abc'], 1, { HOME: empty });
    expect(err).toMatch(/store\/not-found/);
  });

  it('actor add with something that is not a public key, and sign without a key', async () => {
    const { d } = await storeWithTicket();
    expect(await refuses(d, ['actor', 'add', 'seb', 'not a key'], 1)).toMatch(/key/i);
    expect(await refuses(d, ['sign'], 2)).toMatch(/no signing key: pass --key FILE or set TIK_KEY/);
    writeFileSync(join(d, 'garbage-key'), 'not a private key');
    const before = snapshot(d);
    const r = await tik(d, ['sign', '--key', 'garbage-key']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/private key/);
    expect(snapshot(d)).toEqual(before);
    // process sign: the same key rules; an unknown definition names the known ones
    expect(await refuses(d, ['process', 'sign', 'support-request'], 2)).toMatch(/no signing key: pass --key FILE or set TIK_KEY/);
    expect(await refuses(d, ['process', 'sign', 'nope', '--key', 'garbage-key'], 1)).toMatch(/private key/);
    expect(snapshot(d)).toEqual(before);
  });

  it('a TIK_KEY that cannot be read writes nothing', async () => {
    const { d, id } = await storeWithTicket();
    expect(await refuses(d, ['set', id, 'a=1'], 1, { TIK_KEY: 'missing-key' })).toMatch(/TIK_KEY/);
  });
});

describe('a pinned definition with an unknown guard operator (from another implementation)', () => {
  it('status, explain and ls report the operator and the definition, and write nothing', async () => {
    const { mintEvent, parseProcess } = await import('../../../src/tik/kernel/index.js');
    const { emit, ednMap, readEdn } = await import('../../../src/tik/edn/index.js');
    const { Instant, Keyword, Uuid } = await import('../../../src/tik/edn/value.js');
    const d = await supportStore();
    dirs.push(d);
    const def = parseProcess(
      readEdn('{:process/id :weird :process/version 1 :process/stages [{:stage/id :a :hint "h" :guards [[:frobnicate [:x]]]}]}'),
    );
    mkdirSync(join(d, 'processes/by-hash'), { recursive: true });
    writeFileSync(join(d, 'processes/by-hash', `${def.hash}.edn`), emit(def.raw));
    const ticket = '0b0e5d1c-0000-4000-8000-00000000abcd';
    const k = Keyword.of;
    const { event, text } = mintEvent({
      ticket: new Uuid(ticket),
      type: k('ticket/create'),
      actor: 'upstream',
      at: new Instant(Date.UTC(2026, 6, 1)),
      parents: [],
      body: ednMap([
        [k('ticket/title'), 'from elsewhere'],
        [k('ticket/process'), k('weird')],
        [k('ticket/process-version'), 1n],
        [k('ticket/process-hash'), def.hash],
      ]),
    });
    mkdirSync(join(d, 'tickets', ticket, 'events'), { recursive: true });
    writeFileSync(join(d, 'tickets', ticket, 'events', `${event.id}.edn`), text);
    for (const args of [['status', ticket], ['explain', ticket, '--json']]) {
      expect(await refuses(d, args, 1)).toMatch(/frobnicate/);
    }
    const ls = await tik(d, ['ls', '--json']);
    expect(ls.code).toBe(1);
    expect(ls.stderr).toMatch(/frobnicate/);
  });
});
