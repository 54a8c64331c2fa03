/**
 * The memory store: the whole contract in process memory, for tests and for the replica
 * convergence property (many replicas in one process). Bytes are copied in and out, so no caller
 * can change what is stored. `handle()` gives a second handle onto the same contents, as a second
 * process would open the same database.
 */
import type { AllowedSigner } from '../../../core/sshsig.js';
import type { ActorEntry, EventStore, StoredEvent } from '../store.js';
import { checkBytesMatch, checkContentId, checkSidecarName, checkTicket } from '../store-names.js';
import { KeyedFiles, type FileBag } from './keyed-files.js';

interface MemoryState {
  readonly events: Map<string, Map<string, Uint8Array>>;
  readonly sidecars: Map<string, Map<string, Uint8Array>>;
  readonly files: Map<string, Uint8Array>;
}

const copy = (b: Uint8Array): Uint8Array => new Uint8Array(b);

function mapBag(files: Map<string, Uint8Array>): FileBag {
  return {
    get: async (p) => {
      const b = files.get(p);
      return b === undefined ? undefined : copy(b);
    },
    put: async (p, b) => void files.set(p, copy(b)),
    create: async (p, b) => {
      if (files.has(p)) return false;
      files.set(p, copy(b));
      return true;
    },
    list: async (dir) => {
      const prefix = `${dir}/`;
      const names = new Set<string>();
      for (const k of files.keys()) {
        if (!k.startsWith(prefix)) continue;
        names.add(k.slice(prefix.length).split('/')[0]!);
      }
      return [...names].sort();
    },
  };
}

export class MemoryStore implements EventStore {
  readonly kind = 'memory' as const;
  private readonly files: KeyedFiles;

  constructor(
    readonly location = 'memory',
    private readonly state: MemoryState = { events: new Map(), sidecars: new Map(), files: new Map() },
  ) {
    this.files = new KeyedFiles(mapBag(state.files), location);
  }

  /** Another handle onto the same contents. */
  handle(): MemoryStore {
    return new MemoryStore(this.location, this.state);
  }

  async close(): Promise<void> {}

  // ── the log ──
  async append(ticket: string, id: string, bytes: Uint8Array): Promise<boolean> {
    checkTicket(ticket);
    checkContentId(id);
    checkBytesMatch(id, bytes, `ticket ${ticket}`);
    let log = this.state.events.get(ticket);
    if (log?.has(id)) return false;
    if (log === undefined) this.state.events.set(ticket, (log = new Map()));
    log.set(id, copy(bytes));
    return true;
  }
  async events(ticket: string): Promise<readonly StoredEvent[]> {
    checkTicket(ticket);
    return [...(this.state.events.get(ticket) ?? new Map<string, Uint8Array>())].map(([id, b]) => Object.freeze({ id, bytes: copy(b) }));
  }
  async ticketIds(): Promise<readonly string[]> {
    const all = new Set([...this.state.events.keys(), ...this.state.sidecars.keys(), ...(await this.files.blobTickets())]);
    return [...all].sort();
  }
  async hasEvent(ticket: string, id: string): Promise<boolean> {
    checkTicket(ticket);
    checkContentId(id);
    return this.state.events.get(ticket)?.has(id) ?? false;
  }
  async eventBytes(ticket: string, id: string): Promise<Uint8Array | undefined> {
    checkTicket(ticket);
    checkContentId(id);
    const b = this.state.events.get(ticket)?.get(id);
    return b === undefined ? undefined : copy(b);
  }
  async putSidecar(ticket: string, name: string, bytes: Uint8Array): Promise<boolean> {
    checkTicket(ticket);
    checkSidecarName(name);
    let m = this.state.sidecars.get(ticket);
    const old = m?.get(name);
    if (old !== undefined && Buffer.from(old).equals(Buffer.from(bytes))) return false;
    if (m === undefined) this.state.sidecars.set(ticket, (m = new Map()));
    m.set(name, copy(bytes));
    return true;
  }
  async sidecarNames(ticket: string): Promise<readonly string[]> {
    checkTicket(ticket);
    return [...(this.state.sidecars.get(ticket)?.keys() ?? [])].sort();
  }
  async readSidecar(ticket: string, name: string): Promise<Uint8Array | undefined> {
    checkTicket(ticket);
    checkSidecarName(name);
    const b = this.state.sidecars.get(ticket)?.get(name);
    return b === undefined ? undefined : copy(b);
  }

  // ── everything else ──
  putBlob(ticket: string, bytes: Uint8Array): Promise<string> {
    return this.files.putBlob(ticket, bytes);
  }
  readBlob(ticket: string, hash: string): Promise<Uint8Array | undefined> {
    return this.files.readBlob(ticket, hash);
  }
  blobHashes(ticket: string): Promise<readonly string[]> {
    return this.files.blobHashes(ticket);
  }
  archiveProcess(canonicalText: string): Promise<string> {
    return this.files.archiveProcess(canonicalText);
  }
  readProcessByHash(hash: string): Promise<string | undefined> {
    return this.files.readProcessByHash(hash);
  }
  archivedProcessHashes(): Promise<readonly string[]> {
    return this.files.archivedProcessHashes();
  }
  processSidecarNames(hash: string): Promise<readonly string[]> {
    return this.files.processSidecarNames(hash);
  }
  readProcessSidecar(hash: string, name: string): Promise<Uint8Array | undefined> {
    return this.files.readProcessSidecar(hash, name);
  }
  putProcessSidecar(hash: string, name: string, bytes: Uint8Array): Promise<boolean> {
    return this.files.putProcessSidecar(hash, name, bytes);
  }
  readNamedProcess(name: string): Promise<string | undefined> {
    return this.files.readNamedProcess(name);
  }
  writeNamedProcess(name: string, text: string): Promise<void> {
    return this.files.writeNamedProcess(name, text);
  }
  listProcesses(): Promise<readonly string[]> {
    return this.files.listProcesses();
  }
  rootWitnessNames(): Promise<readonly string[]> {
    return this.files.rootWitnessNames();
  }
  readRootWitness(name: string): Promise<Uint8Array | undefined> {
    return this.files.readRootWitness(name);
  }
  putRootWitness(name: string, bytes: Uint8Array): Promise<boolean> {
    return this.files.putRootWitness(name, bytes);
  }
  readRolesRegister(): Promise<string | undefined> {
    return this.files.readRolesRegister();
  }
  readActorsText(): Promise<string | undefined> {
    return this.files.readActorsText();
  }
  readActors(): Promise<readonly AllowedSigner[]> {
    return this.files.readActors();
  }
  addActor(name: string, pubkeyLine: string): Promise<ActorEntry> {
    return this.files.addActor(name, pubkeyLine);
  }
  /** Everything beside the log, by relative path (migrate, export, import). */
  sideFiles(): FileBag {
    return this.files.bag;
  }
  /** Writes `roles.edn`, `actors` or `processes/<x>.tests.edn` verbatim (migrate, import). */
  writeSideFile(path: string, bytes: Uint8Array): Promise<void> {
    return this.files.writeSideFile(path, bytes);
  }
}
