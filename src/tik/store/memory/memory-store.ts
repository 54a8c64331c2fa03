/**
 * The memory store: the whole contract in process memory, for tests and for the replica
 * convergence property (many replicas in one process). Bytes are copied in and out, so no caller
 * can change what is stored. `handle()` gives a second handle onto the same contents, as a second
 * process would open the same database.
 */
import type { EventRef, EventStore, SidecarEntry, StoredEvent } from '../store.js';
import { checkBytesMatch, checkContentId, checkSidecarName, checkTicket } from '../store-names.js';
import { KeyedFilesDelegate } from '../side-file-delegate.js';
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

export class MemoryStore extends KeyedFilesDelegate implements EventStore {
  readonly kind = 'memory' as const;
  protected readonly files: KeyedFiles;

  constructor(
    readonly location = 'memory',
    private readonly state: MemoryState = { events: new Map(), sidecars: new Map(), files: new Map() },
  ) {
    super();
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
  async allEventIds(): Promise<readonly EventRef[]> {
    return [...this.state.events].flatMap(([ticket, log]) => [...log.keys()].map((id) => ({ ticket, id })));
  }
  async allSidecarNames(): Promise<readonly SidecarEntry[]> {
    return [...this.state.sidecars].flatMap(([ticket, m]) => [...m.keys()].map((name) => ({ ticket, name })));
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
}
