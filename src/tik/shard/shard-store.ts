import { TikError } from '../errors.js';
import { SideFileDelegate } from '../store/side-file-delegate.js';
import type { EventRef, EventStore, SidecarEntry, StoredEvent, StoreKind } from '../store/store.js';
import type { Bundle } from '../sync/bundle.js';
import { ownsTicket, shardOf, shardText, type ShardSpec } from './shard-spec.js';

/**
 * A store seen through a shard: only the tickets the shard owns take part. Sync runs over this
 * view on both sides, so two replicas of a shard reconcile exactly the shard's events (their
 * fingerprints match even when a store also holds foreign tickets, e.g. ones written by the CLI
 * or left from before sharding), and a bundle naming a foreign ticket is refused. Everything that
 * is not the log (definitions, blobs, trust files) passes through unchanged.
 */
export class ShardStore extends SideFileDelegate implements EventStore {
  readonly kind: StoreKind;
  readonly location: string;
  protected readonly files: EventStore;
  /** The shard's part of the inner store's listing (present when the inner store lists). */
  readonly allEventIds?: () => Promise<readonly EventRef[]>;
  readonly allSidecarNames?: () => Promise<readonly SidecarEntry[]>;

  constructor(
    readonly inner: EventStore,
    readonly shard: ShardSpec,
  ) {
    super();
    this.files = inner;
    this.kind = inner.kind;
    this.location = inner.location; // a path some callers resolve against; messages name the shard themselves
    const listEvents = inner.allEventIds?.bind(inner);
    const listSidecars = inner.allSidecarNames?.bind(inner);
    if (listEvents) this.allEventIds = async () => (await listEvents()).filter((r) => this.owns(r.ticket));
    if (listSidecars) this.allSidecarNames = async () => (await listSidecars()).filter((r) => this.owns(r.ticket));
  }

  owns(ticket: string): boolean {
    return ownsTicket(this.shard, ticket);
  }

  /**
   * Refuses (`sync/refused`) a bundle naming any ticket of another shard, before anything of it
   * is stored (a push from a misconfigured peer writes nothing, not even its definitions).
   */
  admitBundle(bundle: Bundle): void {
    for (const r of [...bundle.events, ...bundle.sidecars, ...bundle.blobs]) {
      if (!this.owns(r.ticket)) throw this.refuse(r.ticket, 'a record');
    }
  }

  private refuse(ticket: string, what: string): TikError {
    return new TikError('sync/refused', `${what} of ticket ${ticket} belongs to shard ${shardOf(ticket, this.shard.count)}/${this.shard.count}, not to this replica's shard ${shardText(this.shard)}`, {
      where: ticket,
      hint: 'sync a ticket only with replicas of the shard that owns it (same --shard on both sides)',
    });
  }

  async ticketIds(): Promise<readonly string[]> {
    return (await this.inner.ticketIds()).filter((t) => this.owns(t));
  }
  async events(ticket: string): Promise<readonly StoredEvent[]> {
    return this.owns(ticket) ? this.inner.events(ticket) : [];
  }
  async hasEvent(ticket: string, id: string): Promise<boolean> {
    return this.owns(ticket) && this.inner.hasEvent(ticket, id);
  }
  async eventBytes(ticket: string, id: string): Promise<Uint8Array | undefined> {
    return this.owns(ticket) ? this.inner.eventBytes(ticket, id) : undefined;
  }
  async append(ticket: string, id: string, bytes: Uint8Array): Promise<boolean> {
    if (!this.owns(ticket)) throw this.refuse(ticket, `event ${id}`);
    return this.inner.append(ticket, id, bytes);
  }
  async putSidecar(ticket: string, name: string, bytes: Uint8Array): Promise<boolean> {
    if (!this.owns(ticket)) throw this.refuse(ticket, `sidecar ${name}`);
    return this.inner.putSidecar(ticket, name, bytes);
  }
  async sidecarNames(ticket: string): Promise<readonly string[]> {
    return this.owns(ticket) ? this.inner.sidecarNames(ticket) : [];
  }
  async readSidecar(ticket: string, name: string): Promise<Uint8Array | undefined> {
    return this.owns(ticket) ? this.inner.readSidecar(ticket, name) : undefined;
  }
  async putBlob(ticket: string, bytes: Uint8Array): Promise<string> {
    if (!this.owns(ticket)) throw this.refuse(ticket, 'a blob');
    return this.inner.putBlob(ticket, bytes);
  }
  async readBlob(ticket: string, hash: string): Promise<Uint8Array | undefined> {
    return this.owns(ticket) ? this.inner.readBlob(ticket, hash) : undefined;
  }
}
