/**
 * Checks one kind of event sidecar (`<id>.sig.<fpr16>` for L1, `<id>.witness.<fpr16>` for L3):
 * each must be an SSHSIG in the kind's namespace over the event's exact stored bytes, named for
 * the key that made it, by a key `actors` lists (for the event's own actor, when required).
 */
import { fpr16, parseSshSignature, type AllowedSigner } from '../../core/sshsig.js';
import type { TikEvent } from '../kernel/index.js';
import { problem, type StoreProblem } from '../store/problem.js';
import type { EventStore, StoredEvent } from '../store/store.js';
import { SIDECAR_NAME } from '../store/store-names.js';
import { checkSignature } from './check-signature.js';

export interface SidecarRule {
  readonly kind: 'sig' | 'witness';
  readonly namespace: string;
  /** `L1` or `L3`: the prefix of every problem code. */
  readonly level: string;
  /** The principal the key must be listed for, or undefined for anyone in `actors`. */
  readonly principal: (e: TikEvent) => string | undefined;
  readonly hintForUntrusted: (e: TikEvent) => string;
}

export interface SidecarOutcome {
  readonly problems: readonly StoreProblem[];
  readonly notes: readonly StoreProblem[];
  /** Ids of events with at least one sidecar of this kind that verifies. */
  readonly good: ReadonlySet<string>;
}

const SUFFIX: Record<string, string> = {
  malformed: 'malformed-signature',
  namespace: 'wrong-namespace',
  unsupported: 'unsupported-key',
  'bad-signature': 'bad-signature',
  'unknown-key': 'unknown-key',
  'wrong-principal': 'wrong-actor',
  'namespace-not-allowed': 'namespace-not-allowed',
};

export async function checkEventSidecars(
  store: EventStore,
  ticket: string,
  stored: readonly StoredEvent[],
  events: readonly TikEvent[],
  actors: readonly AllowedSigner[] | StoreProblem,
  rule: SidecarRule,
): Promise<SidecarOutcome> {
  const problems: StoreProblem[] = [];
  const notes: StoreProblem[] = [];
  const good = new Set<string>();
  const bytesById = new Map(stored.map((s) => [s.id, s.bytes]));
  const eventById = new Map(events.map((e) => [e.id, e]));
  const code = (suffix: string) => `${rule.level}/${suffix}`;
  const names = (await store.sidecarNames(ticket)).filter((n) => SIDECAR_NAME.exec(n)?.[2] === rule.kind);
  for (const name of names) {
    const [, id, , fpr] = SIDECAR_NAME.exec(name)!;
    const where = `tickets/${ticket}/events/${name}`;
    const at = { where, event: id! };
    const event = eventById.get(id!);
    const bytes = bytesById.get(id!);
    if (event === undefined || bytes === undefined) {
      notes.push(problem(code('orphan-signature'), `${where} signs ${id}, which is not a valid event of this ticket`, at));
      continue;
    }
    const sigBytes = await store.readSidecar(ticket, name);
    if (sigBytes === undefined) continue; // removed while we were reading
    let keyFpr: string;
    try {
      keyFpr = fpr16(Buffer.from(parseSshSignature(sigBytes).publicKeyBlob).toString('base64'));
    } catch (e) {
      problems.push(problem(code('malformed-signature'), `${where} is not an SSH signature: ${e instanceof Error ? e.message : String(e)}`, at));
      continue;
    }
    if (keyFpr !== fpr) {
      problems.push(
        problem(code('fingerprint-mismatch'), `${where} is named for key ${fpr} but was made by key ${keyFpr}`, {
          ...at,
          hint: `a sidecar is named <id>.${rule.kind}.<fpr16 of the signing key>`,
        }),
      );
      continue;
    }
    if (!Array.isArray(actors)) {
      problems.push(problem(code('no-actors'), `${where} cannot be checked: ${(actors as StoreProblem).message}`, at));
      continue;
    }
    const principal = rule.principal(event);
    const r = await checkSignature(sigBytes, bytes, rule.namespace, principal, actors);
    if (r.ok) {
      good.add(id!);
      continue;
    }
    const by = principal === undefined ? '' : ` (event by "${principal}")`;
    problems.push(
      problem(code(SUFFIX[r.failure] ?? 'bad-signature'), `${where}${by}: ${r.reason}`, {
        ...at,
        hint:
          r.failure === 'unknown-key' || r.failure === 'wrong-principal'
            ? rule.hintForUntrusted(event)
            : 'the event or its signature was altered, or the signature is for other bytes',
      }),
    );
  }
  return { problems, notes, good };
}
