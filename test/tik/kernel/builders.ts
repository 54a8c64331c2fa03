// Test helpers: mint real events (real ids, real bytes) for one ticket, and load definitions.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ednMap, readEdn } from '../../../src/tik/edn/index.js';
import type { EdnMap, Keyword} from '../../../src/tik/edn/value.js';
import { Instant, Uuid, kw, type EdnValue } from '../../../src/tik/edn/value.js';
import { mintEvent, parseProcess, resolveRoles, type ProcessDef, type Roles, type TikEvent } from '../../../src/tik/kernel/index.js';

export const CONFORMANCE = resolve(process.cwd(), '../shared/tik-conformance');
export const T0 = Date.parse('2026-01-01T00:00:00Z');
export const HOUR = 3_600_000;

export const at = (ms: number): Instant => new Instant(ms);
export const path = (dotted: string): Keyword[] => dotted.split('.').map((p) => kw(p));
export const body = (entries: Record<string, EdnValue>): EdnMap => ednMap(Object.entries(entries).map(([k, v]) => [kw(k), v] as const));

export function defFromText(text: string): ProcessDef {
  return parseProcess(readEdn(text, 'test'));
}

export function loadDef(rel: string): ProcessDef {
  return parseProcess(readEdn(readFileSync(resolve(CONFORMANCE, rel), 'utf8'), rel), rel);
}

/** The register the Gherkin features use (`roles.edn`). */
export function registerRoles(def: ProcessDef): Roles {
  return resolveRoles(def, readEdn(readFileSync(resolve(CONFORMANCE, 'roles.edn'), 'utf8')) as EdnMap);
}

interface Opts {
  /** Instant in ms; default previous + 1 ms. */
  at?: number;
  /** Parent ids; default the previous event (a linear history). */
  parents?: readonly string[];
}

/** Builds one ticket's history with mint, chaining each event to the previous by default. */
export class Ticket {
  readonly events: TikEvent[] = [];
  readonly texts = new Map<string, string>();
  private last: TikEvent | undefined;
  readonly ticket: Uuid;

  constructor(
    readonly process = 'support-request',
    ticket = '018f2f6e-7c1a-7000-8000-000000000001',
  ) {
    this.ticket = new Uuid(ticket);
  }

  private mint(type: string, actor: string, b: EdnMap, o: Opts): TikEvent {
    const isCreate = type === 'ticket/create';
    const when = o.at ?? (this.last ? this.last.at.ms + 1 : T0);
    const parents = o.parents ?? (isCreate || !this.last ? [] : [this.last.id]);
    const { event, text } = mintEvent({ ticket: this.ticket, type: kw(type), actor, at: at(when), parents, body: b });
    this.events.push(event);
    this.texts.set(event.id, text);
    this.last = event;
    return event;
  }

  create(actor = 'gherkin', o: Opts = {}, title = 'a ticket'): TikEvent {
    return this.mint('ticket/create', actor, body({ 'ticket/title': title, 'ticket/process': kw(this.process) }), o);
  }

  assert(actor: string, dotted: string, value: EdnValue, o: Opts = {}): TikEvent {
    return this.mint('fact/assert', actor, body({ 'fact/path': path(dotted), 'fact/value': value }), o);
  }

  retract(actor: string, dotted: string, o: Opts = {}, reason?: string): TikEvent {
    return this.mint('fact/retract', actor, body({ 'fact/path': path(dotted), ...(reason !== undefined ? { 'retract/reason': reason } : {}) }), o);
  }

  dispute(actor: string, dotted: string, reason: EdnValue, o: Opts = {}): TikEvent {
    return this.mint('fact/dispute', actor, body({ 'fact/path': path(dotted), 'dispute/reason': reason }), o);
  }

  withdraw(actor: string, dotted: string, o: Opts = {}): TikEvent {
    return this.mint('fact/dispute', actor, body({ 'fact/path': path(dotted), 'dispute/reason': 'withdrawn', 'dispute/withdraw?': true }), o);
  }

  attach(actor: string, artifactPath: string, o: Opts = {}): TikEvent {
    return this.mint('artifact/attach', actor, body({ 'artifact/path': artifactPath, 'artifact/hash': 'sha256-feature' }), o);
  }

  attest(actor: string, claim: EdnValue, o: Opts = {}): TikEvent {
    return this.mint('attestation/add', actor, body({ claim }), o);
  }

  migrate(actor: string, version: bigint, hash: string, o: Opts = {}): TikEvent {
    return this.mint('process/migrate', actor, body({ 'process/version': version, 'process/hash': hash }), o);
  }

  /** The time of the last event (ms). */
  get now(): number {
    return this.last ? this.last.at.ms : T0;
  }
}
