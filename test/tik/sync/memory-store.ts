// A minimal in-memory EventStore for the sync tests (kept local so these tests depend only on the
// EventStore contract). Appends check ids like every backend does.
import type { AllowedSigner } from '../../../src/core/sshsig.js';
import { TikError } from '../../../src/tik/errors.js';
import type { ActorEntry, EventStore, StoredEvent } from '../../../src/tik/store/store.js';
import { sha256Id } from '../../../src/tik/store/store-names.js';

export class TestMemoryStore implements EventStore {
  readonly kind = 'memory' as const;
  readonly events_ = new Map<string, Map<string, Uint8Array>>();
  readonly sidecars = new Map<string, Map<string, Uint8Array>>();
  readonly blobs = new Map<string, Uint8Array>();
  readonly processes = new Map<string, string>();
  /** Number of successful appends (new events), to prove nothing is stored twice. */
  appends = 0;
  /** When set, append throws after this many more appends (a crash mid-transfer). */
  failAfter: number | undefined;

  constructor(readonly location = 'memory') {}

  async append(ticket: string, id: string, bytes: Uint8Array): Promise<boolean> {
    if (sha256Id(bytes) !== id) throw new TikError('store/hash-mismatch', `bytes do not hash to ${id}`);
    let log = this.events_.get(ticket);
    if (log?.has(id)) return false;
    if (this.failAfter !== undefined) {
      if (this.failAfter === 0) throw new Error('simulated crash');
      this.failAfter--;
    }
    if (!log) this.events_.set(ticket, (log = new Map()));
    log.set(id, Uint8Array.from(bytes));
    this.appends++;
    return true;
  }
  async events(ticket: string): Promise<readonly StoredEvent[]> {
    return [...(this.events_.get(ticket) ?? new Map<string, Uint8Array>()).entries()].map(([id, bytes]) => ({ id, bytes }));
  }
  async ticketIds(): Promise<readonly string[]> {
    return [...this.events_.keys()].sort();
  }
  async hasEvent(ticket: string, id: string): Promise<boolean> {
    return this.events_.get(ticket)?.has(id) ?? false;
  }
  async eventBytes(ticket: string, id: string): Promise<Uint8Array | undefined> {
    return this.events_.get(ticket)?.get(id);
  }
  async putSidecar(ticket: string, name: string, bytes: Uint8Array): Promise<boolean> {
    let m = this.sidecars.get(ticket);
    if (!m) this.sidecars.set(ticket, (m = new Map()));
    const old = m.get(name);
    if (old !== undefined && Buffer.compare(old, bytes) === 0) return false;
    m.set(name, Uint8Array.from(bytes)); // as the file store: different bytes replace the old ones
    return true;
  }
  async sidecarNames(ticket: string): Promise<readonly string[]> {
    return [...(this.sidecars.get(ticket)?.keys() ?? [])].sort();
  }
  async readSidecar(ticket: string, name: string): Promise<Uint8Array | undefined> {
    return this.sidecars.get(ticket)?.get(name);
  }
  async putBlob(ticket: string, bytes: Uint8Array): Promise<string> {
    const h = sha256Id(bytes);
    this.blobs.set(`${ticket}/${h}`, Uint8Array.from(bytes));
    return h;
  }
  async readBlob(ticket: string, hash: string): Promise<Uint8Array | undefined> {
    return this.blobs.get(`${ticket}/${hash}`);
  }
  async archiveProcess(canonicalText: string): Promise<string> {
    const h = sha256Id(Buffer.from(canonicalText, 'utf8'));
    this.processes.set(h, canonicalText);
    return h;
  }
  async readProcessByHash(hash: string): Promise<string | undefined> {
    return this.processes.get(hash);
  }
  async archivedProcessHashes(): Promise<readonly string[]> {
    return [...this.processes.keys()].sort();
  }
  async processSidecarNames(): Promise<readonly string[]> {
    return [];
  }
  async readProcessSidecar(): Promise<Uint8Array | undefined> {
    return undefined;
  }
  async putProcessSidecar(): Promise<boolean> {
    return false;
  }
  async readNamedProcess(): Promise<string | undefined> {
    return undefined;
  }
  async writeNamedProcess(): Promise<void> {}
  async listProcesses(): Promise<readonly string[]> {
    return [];
  }
  async rootWitnessNames(): Promise<readonly string[]> {
    return [];
  }
  async readRootWitness(): Promise<Uint8Array | undefined> {
    return undefined;
  }
  async putRootWitness(): Promise<boolean> {
    return false;
  }
  async readRolesRegister(): Promise<string | undefined> {
    return undefined;
  }
  async readActorsText(): Promise<string | undefined> {
    return undefined;
  }
  async readActors(): Promise<readonly AllowedSigner[]> {
    return [];
  }
  async addActor(name: string): Promise<ActorEntry> {
    return { name, fpr16: '', line: '' };
  }

  /** Every (ticket, id) held, sorted. */
  allIds(): string[] {
    return [...this.events_.entries()].flatMap(([t, m]) => [...m.keys()].map((id) => `${t}/${id}`)).sort();
  }
}
