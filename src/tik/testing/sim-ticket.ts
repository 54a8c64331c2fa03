import { ednMap } from '../edn/index.js';
import { Instant, Keyword, Uuid, type EdnMap, type EdnValue } from '../edn/value.js';
import {
  currentStages,
  effectiveReached,
  explain,
  mintEvent,
  type ExplainResult,
  type ProcessDef,
  type Roles,
  type TikEvent,
} from '../kernel/index.js';

/** The fixed ticket id the in-memory test tickets use. */
export const SIM_TICKET = new Uuid('00000000-0000-4000-8000-000000000001');

/** 2026-01-01T00:00:00Z: when both upstream runners create their ticket (§11.2, §11.3). */
export const SIM_EPOCH = new Instant(Date.UTC(2026, 0, 1));

const k = (text: string): Keyword => Keyword.of(text);

/**
 * An in-memory ticket for the conformance runners: a create at `SIM_EPOCH`, then every appended
 * event is dated `now + 1 ms` with the previous event as its only parent, and `now` moves to it.
 * Derivations run at `now`. Events are minted by the kernel, so they are real, hashable events.
 */
export class SimTicket {
  private readonly log: TikEvent[] = [];
  private clock: Instant;

  constructor(
    readonly def: ProcessDef,
    readonly roles: Roles,
    options: { creator: string; title?: string; pin?: boolean },
  ) {
    const body: [EdnValue, EdnValue][] = [
      [k('ticket/title'), options.title ?? `${def.id.text} test`],
      [k('ticket/process'), def.id],
    ];
    if (options.pin) {
      body.push([k('ticket/process-version'), def.version], [k('ticket/process-hash'), def.hash]);
    }
    this.clock = SIM_EPOCH;
    this.log.push(
      mintEvent({ ticket: SIM_TICKET, type: k('ticket/create'), actor: options.creator, at: SIM_EPOCH, parents: [], body: ednMap(body) })
        .event,
    );
  }

  get now(): Instant {
    return this.clock;
  }

  get events(): readonly TikEvent[] {
    return this.log;
  }

  /** Move evaluation time forward by `ms` (events are not touched). */
  advance(ms: number): void {
    this.clock = new Instant(this.clock.ms + ms);
  }

  /** Set evaluation time to an absolute instant. */
  setNow(at: Instant): void {
    this.clock = at;
  }

  /** Append an event at `now + 1 ms` whose parent is the previous event. */
  append(type: string, actor: string, body: EdnMap): TikEvent {
    const at = new Instant(this.clock.ms + 1);
    const previous = this.log[this.log.length - 1];
    const { event } = mintEvent({
      ticket: SIM_TICKET,
      type: k(type),
      actor,
      at,
      parents: previous ? [previous.id] : [],
      body,
    });
    this.log.push(event);
    this.clock = at;
    return event;
  }

  assert(actor: string, path: readonly Keyword[], value: EdnValue): TikEvent {
    return this.append('fact/assert', actor, ednMap([[k('fact/path'), [...path]], [k('fact/value'), value]]));
  }

  retract(actor: string, path: readonly Keyword[]): TikEvent {
    return this.append('fact/retract', actor, ednMap([[k('fact/path'), [...path]]]));
  }

  dispute(actor: string, path: readonly Keyword[], reason: EdnValue): TikEvent {
    return this.append('fact/dispute', actor, ednMap([[k('fact/path'), [...path]], [k('dispute/reason'), reason]]));
  }

  attach(actor: string, artifactPath: string, hash: string): TikEvent {
    return this.append('artifact/attach', actor, ednMap([[k('artifact/path'), artifactPath], [k('artifact/hash'), hash]]));
  }

  attest(actor: string, body: EdnMap): TikEvent {
    return this.append('attestation/add', actor, body);
  }

  reached(): ReadonlySet<string> {
    return effectiveReached(this.def, this.log, this.clock, this.roles);
  }

  current(): ReadonlySet<string> {
    return currentStages(this.def, this.reached());
  }

  explain(): ExplainResult {
    return explain(this.def, this.log, this.clock, this.roles);
  }
}
