import { isCodedError } from '../../core/errors.js';
import { emit, ednEquals, equalityKey, readEdn } from '../edn/index.js';
import { Instant, isMap, Keyword, type EdnValue } from '../edn/value.js';
import { TikError } from '../errors.js';
import { effectiveReached, factValue, isSettled, reduce, type ProcessDef, type Roles, type TikEvent } from '../kernel/index.js';
import type { EventStore } from '../store/store.js';
import { appendChain, body, type Signer } from './append-chain.js';
import { instantText } from './json-value.js';
import { dottedPath } from './kv-args.js';
import { factEnv } from './probe-env.js';
import { probeFacts, type ProbeFact } from './probe-output.js';
import { loadTicketSet } from './ticket-set.js';
import { openTicket, requireDef, type WarningSink } from './ticket-loader.js';
import { WriterClock } from './writer-clock.js';

/**
 * `tik probe` (upstream's auto-derived facts): run each repository ticket's probe — an executable
 * printing `key=value` lines, from `--command` or the `:probe` of the store's named definition of
 * the ticket's process — in that repository, and assert every value that differs from the
 * ticket's present one. The command comes from the named file, as upstream, and never from a
 * pinned definition: pins arrive by sync from any replica, named definitions are this store's own
 * configuration, so a peer cannot make this machine run a command.
 *
 * A probe's events are self-minted, so they are deterministic in every byte (law T5): the actor
 * is the caller's, the parents are the ticket's heads (then each previous event), the body is
 * what the probe printed, and `:at` is the observation instant the caller names — not the clock
 * at the moment of writing — moved 1 ms past a later parent as every write is (§2.5). Two
 * replicas that share a log and observe the same world at the same named instant therefore write
 * byte-identical events, which union into one.
 */

/** What a probe run needs from outside the store: the repositories and a way to run a command. */
export interface ProbeHost {
  /** The directory of repository `name` beside the store, or undefined when there is none. */
  repository(name: string): Promise<string | undefined>;
  /** Run a probe (a script file, else a shell command) in `cwd`, with `env` over the caller's environment. */
  run(probe: string, cwd: string, env: Readonly<Record<string, string>>): Promise<ProbeRun>;
}

/** How a probe ended: its exit status (null when it could not start or was killed) and output. */
export interface ProbeRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Set when the probe was killed for running longer than this many seconds. */
  readonly timedOutS?: number;
}

export interface ProbeInput {
  readonly actor: string;
  /** One ticket (id or unique prefix), probed settled or not; else every unsettled ticket. */
  readonly ticket?: string | undefined;
  /** Run this instead of each definition's `:probe`. */
  readonly command?: string | undefined;
  /** The observation instant (epoch ms): the `:at` of what the probe asserts. */
  readonly atMs: number;
  /** The instant stages are derived at, for the gained stages. */
  readonly now: Instant;
}

/** One ticket's part of `tik probe --json`. */
export interface ProbeTicket {
  readonly ticket: string;
  readonly repo: string | null;
  /** `probed`: the probe ran and its output was recorded; `skipped`: nothing to probe; `failed`: it ran and failed. */
  readonly outcome: 'probed' | 'skipped' | 'failed';
  /** Why it was skipped or failed, else null. */
  readonly reason: string | null;
  /** The facts asserted: dotted key, canonical EDN value, the event and its instant. */
  readonly facts: readonly { readonly key: string; readonly value: string; readonly event: string; readonly at: string }[];
  /** Stages derivable after the assertions that were not before (sorted). */
  readonly gained: readonly string[];
}

/** `tik probe --json`. */
export interface ProbeResult {
  readonly at: string;
  /** How many probes ran (succeeded or failed), were skipped, failed; how many facts were asserted. */
  readonly ran: number;
  readonly skipped: number;
  readonly failed: number;
  readonly derived: number;
  readonly tickets: readonly ProbeTicket[];
  /** Tickets a sweep could not read or derive (present only when there are some; they were not probed). */
  readonly unreadable?: readonly { readonly ticket: string; readonly code: string; readonly message: string }[];
}

interface Candidate {
  readonly ticket: string;
  readonly events: readonly TikEvent[];
  readonly def: ProcessDef;
  readonly roles: Roles;
}

const REPO = [Keyword.of('repo')];
const PROBE = Keyword.of('probe');

/** A repository fact as a directory name (upstream's `safe-name`), or undefined if it is not one plain name. */
function repositoryName(v: EdnValue): string | undefined {
  const name = v instanceof Keyword ? v.name : typeof v === 'string' ? v : emit(v);
  if (name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)) return undefined;
  return name;
}

/** The `:probe` of `processes/<name>.edn` (undefined when there is no such file or it declares none), or why that file cannot be read. */
async function namedProbe(store: EventStore, name: string): Promise<{ readonly probe?: EdnValue; readonly problem?: string }> {
  const file = `processes/${name}.edn`;
  try {
    const text = await store.readNamedProcess(name);
    if (text === undefined) return {};
    const def = readEdn(text, file);
    return isMap(def) ? { probe: def.get(PROBE) } : { problem: `${file} is not an EDN map` };
  } catch (e) {
    if (isCodedError(e)) return { problem: `${file} cannot be read (${e.code}: ${e.message})` };
    throw e;
  }
}

export async function probe(
  deps: { readonly store: EventStore; readonly signer?: Signer | undefined },
  input: ProbeInput,
  host: ProbeHost,
  sink: WarningSink,
): Promise<ProbeResult> {
  const named = input.ticket !== undefined;
  const candidates: Candidate[] = [];
  const unreadable: { ticket: string; code: string; message: string }[] = [];
  if (input.ticket !== undefined) {
    const t = await openTicket(sink, deps.store, input.ticket);
    candidates.push({ ticket: t.ticket, events: t.events, def: requireDef(t), roles: t.roles });
  } else {
    const set = await loadTicketSet(deps.store, input.now);
    for (const w of set.warnings) sink.warn(w);
    for (const s of set.skipped) {
      sink.warn(`ticket ${s.ticket}: ${s.code}: ${s.message}; skipped`);
      unreadable.push({ ticket: s.ticket, code: s.code, message: s.message });
    }
    // a sweep leaves settled tickets alone: their evidence is done changing stages
    for (const t of set.tickets) if (!isSettled(t.def, t.derived.reached)) candidates.push(t);
  }
  const tickets: ProbeTicket[] = [];
  for (const c of candidates) tickets.push(await probeOne(deps, input, host, sink, c, named));
  const count = (o: ProbeTicket['outcome']) => tickets.filter((t) => t.outcome === o).length;
  return {
    at: instantText(new Instant(input.atMs)),
    ran: count('probed') + count('failed'),
    skipped: count('skipped'),
    failed: count('failed'),
    derived: tickets.reduce((n, t) => n + t.facts.length, 0),
    tickets,
    ...(unreadable.length > 0 ? { unreadable } : {}),
  };
}

async function probeOne(
  deps: { readonly store: EventStore; readonly signer?: Signer | undefined },
  input: ProbeInput,
  host: ProbeHost,
  sink: WarningSink,
  c: Candidate,
  named: boolean,
): Promise<ProbeTicket> {
  const state = reduce(c.events);
  const repoValue = factValue(state, REPO);
  const repo = repoValue === undefined ? undefined : repositoryName(repoValue);
  const processName = state.process instanceof Keyword ? state.process.text : c.def.id.text;
  const definition = input.command === undefined ? await namedProbe(deps.store, processName) : {};
  const declared = definition.probe;
  const command = input.command ?? (typeof declared === 'string' ? declared : undefined);
  const dir = repo === undefined ? undefined : await host.repository(repo);
  // Why this ticket cannot be probed at all. Distinct from "probed, nothing changed": both assert
  // nothing, and only one of them measured the world.
  const blocked = ((): string | undefined => {
    if (repoValue === undefined) return "no [:repo] fact — a probe runs with its working directory in the ticket's repository";
    if (repo === undefined) return `its [:repo] fact ${emit(repoValue)} is not a plain directory name`;
    if (definition.problem !== undefined) return definition.problem;
    if (command === undefined) return `processes/${processName}.edn declares no :probe${declared === undefined ? '' : ' string'} — pass --command to run one`;
    if (dir === undefined) return `no such directory beside the store: ${repo}`;
    return undefined;
  })();
  const result = (outcome: ProbeTicket['outcome'], reason: string | null, extra: Partial<ProbeTicket> = {}): ProbeTicket => ({
    ticket: c.ticket,
    repo: repo ?? null,
    outcome,
    reason,
    facts: [],
    gained: [],
    ...extra,
  });
  if (blocked !== undefined) {
    if (named) throw new TikError('probe/unprobeable', `cannot probe ${c.ticket} — ${blocked}`, { where: c.ticket, hint: "a probed ticket needs a repo=<directory> fact and a probe (its process's :probe in processes/, or --command)" });
    return result('skipped', blocked);
  }
  const { env, collisions, unexportable } = factEnv(state);
  for (const x of collisions) sink.warn(`ticket ${c.ticket}: ${x.name} is ambiguous between ${x.paths.join(' and ')} — exported for neither`);
  for (const path of unexportable) sink.warn(`ticket ${c.ticket}: the fact ${path} holds a NUL character, which no environment variable can carry — not exported`);
  // the reserved names go last: a fact can add to the probe's world, never change which ticket it is for
  const run = await host.run(command!, dir!, { ...env, TIK_TICKET: c.ticket, TIK_REPO: repo! });
  let facts: ProbeFact[];
  try {
    if (run.timedOutS !== undefined) {
      throw new TikError('probe/timeout', `the probe of ${c.ticket} (${repo}) did not finish within ${run.timedOutS} s and was stopped with every process it started`, {
        where: c.ticket,
        hint: `nothing was recorded for this ticket; run the probe by hand in ${dir} to see where it waits, or give it longer with --timeout`,
      });
    }
    if (run.status !== 0) {
      const why = run.stderr.trim() || run.stdout.trim();
      throw new TikError('probe/failed', `the probe of ${c.ticket} (${repo}) failed (${run.status === null ? 'did not finish' : `exit ${run.status}`})${why === '' ? '' : `: ${why.slice(0, 2000)}`}`, {
        where: c.ticket,
        hint: `run the probe by hand in ${dir} to see why; nothing was recorded for this ticket`,
      });
    }
    facts = probeFacts(run.stdout, c.def.raw);
  } catch (e) {
    // a sweep goes on past one broken probe; naming the ticket asked for its measurement
    if (named || !isCodedError(e)) throw e;
    return result('failed', e.message);
  }
  // Only what changed: the value the ticket holds now, or what this run already asserted.
  const asserted = new Map<string, EdnValue>();
  const changes: ProbeFact[] = [];
  for (const f of facts) {
    const k = equalityKey([...f.path]);
    const current = asserted.has(k) ? asserted.get(k) : factValue(state, f.path);
    if (current !== undefined && ednEquals(current, f.value)) continue;
    asserted.set(k, f.value);
    changes.push(f);
  }
  if (changes.length === 0) return result('probed', null);
  // A clock of its own per ticket, fixed at the observation instant: the events' bytes depend on
  // this ticket's log and output only, never on the order of the sweep or the time of writing.
  const written = await appendChain(
    { store: deps.store, clock: new WriterClock(() => input.atMs), actor: input.actor, signer: deps.signer },
    c.ticket,
    c.events,
    changes.map((f) => ({ type: 'fact/assert', body: body({ 'fact/path': [...f.path], 'fact/value': f.value }) })),
  );
  const before = effectiveReached(c.def, c.events, input.now, c.roles);
  const after = effectiveReached(c.def, [...c.events, ...written], input.now, c.roles);
  return result('probed', null, {
    facts: changes.map((f, i) => ({ key: dottedPath(f.path), value: emit(f.value), event: written[i]!.id, at: instantText(written[i]!.at) })),
    gained: [...after].filter((s) => !before.has(s)).sort(),
  });
}
