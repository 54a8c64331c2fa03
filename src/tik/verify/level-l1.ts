/**
 * L1, authorship (tik-model.md §8.4): every `<id>.sig.<fpr16>` sidecar is an SSHSIG in namespace
 * `tik-event` over the event's exact bytes, by a key listed in `actors` for the event's OWN
 * `:event/actor`. Ed25519 is verified in process, other key types by ssh-keygen. An unsigned event is "authenticity unclaimed",
 * a note; a bad signature, or a good one by someone else, fails the level.
 */
import { fpr16, parseSshSignature, type AllowedSigner } from '../../core/sshsig.js';
import { checkSignature } from './check-signature.js';
import type { TikEvent } from '../kernel/index.js';
import { problem, type StoreProblem } from '../store/problem.js';
import type { EventStore, StoredEvent } from '../store/store.js';
import { SIDECAR_NAME } from '../store/store-names.js';
import { levelReport, type LevelReport } from './verify-report.js';

export const EVENT_NAMESPACE = 'tik-event';

const CODE: Record<string, string> = {
  malformed: 'L1/malformed-signature',
  namespace: 'L1/wrong-namespace',
  unsupported: 'L1/unsupported-key',
  'bad-signature': 'L1/bad-signature',
  'unknown-key': 'L1/unknown-key',
  'wrong-principal': 'L1/wrong-actor',
  'namespace-not-allowed': 'L1/namespace-not-allowed',
};

export interface L1Result {
  readonly report: LevelReport;
  readonly signed: number;
}

/**
 * `actors` is the parsed allowed-signers list, or a problem when the file is unreadable (then
 * every signature of the ticket fails, since none can be checked).
 */
export async function checkL1(
  store: EventStore,
  ticket: string,
  stored: readonly StoredEvent[],
  events: readonly TikEvent[],
  actors: readonly AllowedSigner[] | StoreProblem,
): Promise<L1Result> {
  const problems: StoreProblem[] = [];
  const notes: StoreProblem[] = [];
  const bytesById = new Map(stored.map((s) => [s.id, s.bytes]));
  const eventById = new Map(events.map((e) => [e.id, e]));
  const signedIds = new Set<string>();
  const names = (await store.sidecarNames(ticket)).filter((n) => SIDECAR_NAME.exec(n)?.[2] === 'sig');
  for (const name of names) {
    const [, id, , fpr] = SIDECAR_NAME.exec(name)!;
    const where = `tickets/${ticket}/events/${name}`;
    const at = { where, event: id! };
    const event = eventById.get(id!);
    const bytes = bytesById.get(id!);
    if (event === undefined || bytes === undefined) {
      notes.push(problem('L1/orphan-signature', `${where} signs ${id}, which is not a valid event of this ticket`, at));
      continue;
    }
    const sigBytes = await store.readSidecar(ticket, name);
    if (sigBytes === undefined) continue; // removed while we were reading
    let keyFpr: string;
    try {
      const sig = parseSshSignature(sigBytes);
      keyFpr = fpr16(Buffer.from(sig.publicKeyBlob).toString('base64'));
    } catch (e) {
      problems.push(problem('L1/malformed-signature', `${where} is not an SSH signature: ${e instanceof Error ? e.message : String(e)}`, at));
      continue;
    }
    if (keyFpr !== fpr) {
      problems.push(
        problem('L1/fingerprint-mismatch', `${where} is named for key ${fpr} but was made by key ${keyFpr}`, {
          ...at,
          hint: 'a signature sidecar is named <id>.sig.<fpr16 of the signing key>',
        }),
      );
      continue;
    }
    if (!Array.isArray(actors)) {
      problems.push(problem('L1/no-actors', `${where} cannot be checked: ${(actors as StoreProblem).message}`, at));
      continue;
    }
    const r = await checkSignature(sigBytes, bytes, EVENT_NAMESPACE, event.actor, actors);
    if (r.ok) {
      signedIds.add(id!);
      continue;
    }
    problems.push(
      problem(CODE[r.failure] ?? 'L1/bad-signature', `${where} (event by "${event.actor}"): ${r.reason}`, {
        ...at,
        hint:
          r.failure === 'unknown-key' || r.failure === 'wrong-principal'
            ? `authorship must verify as the event's own actor; add the key with \`tik actor add ${event.actor} <pub>\` if it is theirs`
            : 'the event or its signature was altered, or the signature is for other bytes',
      }),
    );
  }
  const unsigned = events.filter((e) => !signedIds.has(e.id));
  if (unsigned.length > 0) {
    notes.push(
      problem('L1/unsigned', `${unsigned.length} of ${events.length} event(s) unsigned (authenticity unclaimed)`, {
        where: `tickets/${ticket}`,
        hint: 'sign your own events with `tik sign`, or set TIK_KEY to sign every write',
      }),
    );
  }
  return { report: levelReport(problems, notes), signed: signedIds.size };
}
