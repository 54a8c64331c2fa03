/**
 * Events (tik-model.md §2): the immutable value, parsing with the reducer's well-formedness rule
 * (§3.1), verify's L0 schema check (§2.1–2.2) and `mint` (§2.1 order).
 */
import { TikError } from '../errors.js';
import { EdnMap, EdnSet, Instant, Keyword, Uuid, kw, type EdnValue } from '../edn/value.js';
import { EMPTY_MAP, collItems, contentIdOf, emit, keywordPath, mapOf, readEdn, setOf } from './edn-access.js';

/** An event as the kernel sees it. Immutable. */
export interface TikEvent {
  /** `sha256-<hex>`: from the file name or row key, never from the bytes. */
  readonly id: string;
  readonly ticket: Uuid;
  readonly type: Keyword;
  /** The claimed author; `''` when the map carries no string actor (kept, never trusted). */
  readonly actor: string;
  /** Claimed time: the sort key and the guard-evaluation instant (clamped by `now`). */
  readonly at: Instant;
  /** Parent ids, sorted; a non-collection `:event/parents` counts as none (§2.3). */
  readonly parents: readonly string[];
  /** `:event/body`, or the empty map when absent or not a map. */
  readonly body: EdnMap;
  /** The whole hashed map (without `:event/id`). */
  readonly map: EdnMap;
}

/** The seven event types `mint` and verify accept (§2.2). */
export const EVENT_TYPES: readonly string[] = Object.freeze([
  ':ticket/create',
  ':fact/assert',
  ':fact/retract',
  ':fact/dispute',
  ':artifact/attach',
  ':attestation/add',
  ':process/migrate',
]);

export const K = Object.freeze({
  ticket: kw('event/ticket'),
  type: kw('event/type'),
  actor: kw('event/actor'),
  at: kw('event/at'),
  parents: kw('event/parents'),
  body: kw('event/body'),
  id: kw('event/id'),
  title: kw('ticket/title'),
  process: kw('ticket/process'),
  processVersion: kw('ticket/process-version'),
  processHash: kw('ticket/process-hash'),
  factPath: kw('fact/path'),
  factValue: kw('fact/value'),
  retractReason: kw('retract/reason'),
  disputeReason: kw('dispute/reason'),
  disputeWithdraw: kw('dispute/withdraw?'),
  artifactPath: kw('artifact/path'),
  artifactHash: kw('artifact/hash'),
  artifactDerivedFrom: kw('artifact/derived-from'),
  migrateVersion: kw('process/version'),
  migrateHash: kw('process/hash'),
  migrateReason: kw('migrate/reason'),
  claim: kw('claim'),
});

/**
 * Builds the kernel's view of an already-read event map (§3.1 well-formedness: a map with an
 * instant `:event/at` and a keyword `:event/type`; we also need a uuid `:event/ticket`).
 * Throws `TikError('event/malformed')`.
 */
export function eventFromMap(map: EdnValue, id: string, source?: string): TikEvent {
  const where = source ?? id;
  if (!(map instanceof EdnMap)) {
    throw new TikError('event/malformed', `event ${id} is not a map`, { where, hint: 'an event file holds one EDN map' });
  }
  if (typeof id !== 'string' || id.length === 0) {
    throw new TikError('event/malformed', 'event id must be a non-empty string', { where });
  }
  if (map.get(K.id) !== undefined) {
    throw new TikError('event/malformed', `event ${id} carries :event/id inside its bytes`, {
      where,
      hint: 'the id is the content address of the bytes and is never stored in them',
    });
  }
  const at = map.get(K.at);
  if (!(at instanceof Instant)) {
    throw new TikError('event/malformed', `event ${id} has no instant :event/at`, { where, hint: 'add :event/at #inst "…"' });
  }
  const type = map.get(K.type);
  if (!(type instanceof Keyword)) {
    throw new TikError('event/malformed', `event ${id} has no keyword :event/type`, { where, hint: 'add :event/type, e.g. :fact/assert' });
  }
  const ticket = map.get(K.ticket);
  if (!(ticket instanceof Uuid)) {
    throw new TikError('event/malformed', `event ${id} has no uuid :event/ticket`, { where, hint: 'add :event/ticket #uuid "…"' });
  }
  const actor = map.get(K.actor);
  const parentsValue = map.get(K.parents);
  const parents = (collItems(parentsValue) ?? []).filter((p): p is string => typeof p === 'string');
  const uniqueParents = [...new Set(parents)].sort();
  const body = map.get(K.body);
  return Object.freeze({
    id,
    ticket,
    type,
    actor: typeof actor === 'string' ? actor : '',
    at,
    parents: Object.freeze(uniqueParents),
    body: body instanceof EdnMap ? body : EMPTY_MAP,
    map,
  });
}

/**
 * Reads event text and checks well-formedness. Reader errors are re-raised as
 * `event/malformed` (keeping the position).
 */
export function parseEvent(text: string, id: string, source?: string): TikEvent {
  let value: EdnValue;
  try {
    value = readEdn(text, source ?? id);
  } catch (e) {
    if (e instanceof TikError) {
      throw new TikError('event/malformed', `event ${id} does not parse: ${e.message}`, {
        where: source ?? id,
        ...(e.position ? { position: e.position } : {}),
        hint: e.hint ?? 'an event file holds exactly one canonical EDN map',
        cause: e,
      });
    }
    throw e;
  }
  return eventFromMap(value, id, source);
}

const isPosInt = (v: EdnValue | undefined): boolean => typeof v === 'bigint' && v > 0n;

function bodyProblems(type: string, body: EdnMap): string[] {
  const p: string[] = [];
  const need = (k: Keyword, ok: (v: EdnValue | undefined) => boolean, what: string, optional = false): void => {
    const v = body.get(k);
    if (v === undefined) {
      if (!optional) p.push(`${type} body needs ${k.toString()} (${what})`);
      return;
    }
    if (!ok(v)) p.push(`${type} body ${k.toString()} must be ${what}, got ${emit(v)}`);
  };
  const isPath = (v: EdnValue | undefined): boolean => Array.isArray(v) && keywordPath(v) !== undefined && v.length > 0;
  switch (type) {
    case ':ticket/create':
      need(K.title, (v) => typeof v === 'string', 'a string');
      need(K.process, (v) => v instanceof Keyword, 'a keyword');
      need(K.processVersion, isPosInt, 'a positive integer', true);
      need(K.processHash, (v) => typeof v === 'string', 'a string', true);
      break;
    case ':fact/assert':
      need(K.factPath, isPath, 'a vector of keywords');
      if (!body.hasText(K.factValue.toString())) p.push(`${type} body needs :fact/value`);
      break;
    case ':fact/retract':
      need(K.factPath, isPath, 'a vector of keywords');
      break;
    case ':fact/dispute':
      need(K.factPath, isPath, 'a vector of keywords');
      if (!body.hasText(K.disputeReason.toString())) p.push(`${type} body needs :dispute/reason (nil is allowed)`);
      need(K.disputeWithdraw, (v) => typeof v === 'boolean', 'a boolean', true);
      break;
    case ':artifact/attach':
      need(K.artifactPath, (v) => typeof v === 'string', 'a string');
      need(K.artifactHash, (v) => typeof v === 'string', 'a string');
      break;
    case ':attestation/add':
      break;
    case ':process/migrate':
      need(K.migrateVersion, isPosInt, 'a positive integer');
      need(K.migrateHash, (v) => typeof v === 'string', 'a string', true);
      break;
  }
  return p;
}

/**
 * Verify's L0 schema check over a hashed event map (§2.1–2.2): the envelope types, one of the
 * seven known types, and that type's body keys. Returns human-readable problems; `[]` if valid.
 * The parents rule is separate: `parentsProblem`.
 */
export function eventSchemaProblems(map: EdnMap): string[] {
  const p: string[] = [];
  if (map.get(K.id) !== undefined) p.push(':event/id must not be stored in the event');
  if (!(map.get(K.ticket) instanceof Uuid)) p.push(':event/ticket must be a uuid');
  const type = map.get(K.type);
  if (!(type instanceof Keyword)) p.push(':event/type must be a keyword');
  else if (!EVENT_TYPES.includes(type.toString())) p.push(`:event/type ${type.toString()} is not one of ${EVENT_TYPES.join(' ')}`);
  if (typeof map.get(K.actor) !== 'string') p.push(':event/actor must be a string');
  if (!(map.get(K.at) instanceof Instant)) p.push(':event/at must be an instant');
  const parents = map.get(K.parents);
  if (!(parents instanceof EdnSet)) p.push(':event/parents must be a set of event ids');
  else for (const m of parents.values()) if (typeof m !== 'string') p.push(`:event/parents member ${emit(m)} is not a string id`);
  const body = map.get(K.body);
  if (body !== undefined && !(body instanceof EdnMap)) p.push(':event/body must be a map');
  if (type instanceof Keyword && EVENT_TYPES.includes(type.toString())) {
    p.push(...bodyProblems(type.toString(), body instanceof EdnMap ? body : EMPTY_MAP));
  }
  return p;
}

/** The parents rule: `#{}` iff `:ticket/create`. Returns a problem or `undefined`. */
export function parentsProblem(map: EdnMap): string | undefined {
  const type = map.get(K.type);
  const parents = map.get(K.parents);
  const n = parents instanceof EdnSet ? parents.size : (collItems(parents)?.length ?? 0);
  const isCreate = type instanceof Keyword && type.toString() === ':ticket/create';
  if (isCreate && n !== 0) return ':ticket/create must have no parents';
  if (!isCreate && n === 0) return `${type instanceof Keyword ? type.toString() : 'an event'} must name at least one parent`;
  return undefined;
}

/** What a writer wants to append. `at` is normalised to milliseconds (Instant already is). */
export interface MintInput {
  readonly ticket: Uuid;
  readonly type: Keyword;
  readonly actor: string;
  readonly at: Instant;
  readonly parents: readonly string[];
  readonly body: EdnMap;
}

/**
 * Mints an event (§2.1): normalise `:at` → id → schema → byte round-trip → parents rule.
 * Returns the event and its canonical text (the exact bytes to store).
 * Throws `TikError` with code `event/invalid`, `event/unwritable` or `event/parents`.
 */
export function mintEvent(input: MintInput): { event: TikEvent; text: string } {
  const map = mapOf([
    [K.ticket, input.ticket],
    [K.type, input.type],
    [K.actor, input.actor],
    [K.at, new Instant(input.at.ms)],
    [K.parents, setOf(input.parents)],
    [K.body, input.body],
  ]);
  let text: string;
  let id: string;
  try {
    text = emit(map);
    id = contentIdOf(map);
  } catch (e) {
    throw new TikError('event/unwritable', `event cannot be written canonically: ${(e as Error).message}`, {
      where: input.type.toString(),
      hint: 'values must be nil, booleans, 64-bit integers, strings, keywords, symbols, uuids, instants and collections of them',
      cause: e,
    });
  }
  const problems = eventSchemaProblems(map);
  if (problems.length > 0) {
    throw new TikError('event/invalid', `event does not match the schema: ${problems.join('; ')}`, {
      where: input.type.toString(),
      hint: 'see tik-model.md §2.2 for the body keys of each event type',
    });
  }
  let again: string | undefined;
  try {
    again = emit(readEdn(text, id));
  } catch {
    again = undefined;
  }
  if (again !== text) {
    throw new TikError('event/unwritable', `event does not survive a read/emit round trip: ${text}`, {
      where: input.type.toString(),
      hint: 'a keyword or symbol probably contains characters EDN cannot read back (e.g. a space)',
    });
  }
  const parents = parentsProblem(map);
  if (parents) throw new TikError('event/parents', parents, { where: input.type.toString(), hint: 'parents are the heads the author saw' });
  return { event: eventFromMap(map, id), text };
}
