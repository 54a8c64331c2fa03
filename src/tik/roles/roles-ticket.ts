import { emit, readEdn, EdnMap, Instant, Keyword, Uuid, kw, type EdnValue } from '../edn/index.js';
import { ednMap, ednVector } from '../edn/construct.js';
import { mintEvent, parseProcess, parseRoleMap, reduce, factStatus, type TikEvent } from '../kernel/index.js';

/**
 * The replicated roles register (docs/tik-sync.md, "Roles"): a ticket with a well-known id whose
 * `[:register]` fact is the whole register, `{role {:members [...]}}`. It is an ordinary ticket —
 * content-addressed events, synced like any other, authored and optionally signed — so every
 * replica holding the same events derives the same roles. Its create is self-minted and
 * deterministic in every byte (T5), so replicas that each publish first still share one ticket.
 */
export const ROLES_TICKET = '00000000-0000-4000-8000-0000000001e5';

/** The definition the roles ticket is pinned to (canonical text; archived under its hash). */
export const ROLES_PROCESS_TEXT = emit(
  readEdn(
    `{:process/id :tik-roles :process/version 1 :process/guard-vocab 1
      :process/facts {[:register] :map}
      :process/stages [{:stage/id :published :guards [[:fact [:register]]]}]}`,
    'tik-roles',
  ),
);
export const ROLES_PROCESS = parseProcess(readEdn(ROLES_PROCESS_TEXT, 'tik-roles'), 'tik-roles');

const REGISTER_PATH = [kw('register')];

/** The roles ticket's create: the same bytes on every replica. */
export function rolesTicketCreate(): { event: TikEvent; text: string } {
  return mintEvent({
    ticket: new Uuid(ROLES_TICKET),
    type: kw('ticket/create'),
    actor: 'tik',
    at: new Instant(0),
    parents: [],
    body: ednMap([
      [kw('ticket/title'), 'roles register'],
      [kw('ticket/process'), kw('tik-roles')],
      [kw('ticket/process-hash'), ROLES_PROCESS.hash],
    ]),
  });
}

/** What the roles ticket says, derived from its events alone (no I/O, no clock). */
export type ReplicatedRegister =
  | { readonly status: 'absent' }
  | { readonly status: 'present'; readonly register: EdnMap; readonly event: string }
  /** Concurrent publishes: each role keeps only the members every contender names (fail closed). */
  | { readonly status: 'conflicted'; readonly register: EdnMap; readonly events: readonly string[] };

export function replicatedRegister(events: readonly TikEvent[]): ReplicatedRegister {
  if (events.length === 0) return { status: 'absent' };
  const s = factStatus(reduce(events), REGISTER_PATH);
  if (s.status === 'present' && s.value instanceof EdnMap && validRegister(s.value)) return { status: 'present', register: s.value, event: s.event };
  if (s.status === 'conflicted') {
    const claims = s.claims.map((c) => c.value).filter((v): v is EdnMap => v instanceof EdnMap && validRegister(v));
    return { status: 'conflicted', register: intersect(claims), events: s.claims.map((c) => c.event).sort() };
  }
  return { status: 'absent' };
}

function validRegister(m: EdnMap): boolean {
  try {
    parseRoleMap(m, undefined, '');
    return true;
  } catch {
    return false;
  }
}

/** Roles named by every register, each with the members all of them name (sorted). */
function intersect(registers: readonly EdnMap[]): EdnMap {
  if (registers.length === 0) return ednMap([]);
  const parsed = registers.map((r) => parseRoleMap(r, undefined, ''));
  const out: [EdnValue, EdnValue][] = [];
  for (const [role, members] of parsed[0]!) {
    if (!parsed.every((p) => p.has(role))) continue;
    const common = members.filter((m) => parsed.every((p) => p.get(role)!.includes(m)));
    out.push([Keyword.of(role.slice(1)), ednMap([[kw('members'), ednVector([...new Set(common)].sort())]])]);
  }
  return ednMap(out);
}
