import { TikError } from '../errors.js';
import { ADMISSION_LIMITS } from '../store/admission/limits.js';
import { sha256Id as sha256Hex } from '../store/store-names.js';
import { ByteReader, ByteWriter } from './byte-io.js';
import { ID_BYTES, idBytes, idText } from './sync-item.js';

/**
 * The transfer format: events with the files a replica needs beside them. Layout (docs/tik-sync.md):
 * `"TIKB" 0x01`, then records `kind:u8 …`, then a `0x00` end record (a body without it is truncated).
 */
export interface BundleEvent {
  readonly ticket: string;
  readonly id: string;
  readonly bytes: Uint8Array;
}
export interface BundleSidecar {
  readonly ticket: string;
  readonly name: string;
  readonly bytes: Uint8Array;
}
export interface BundleBlob {
  readonly ticket: string;
  readonly bytes: Uint8Array;
}
/** A definition's publication signature, `<hash>.sig.<fpr16>` (namespace `tik-process`). */
export interface BundleProcessSidecar {
  readonly name: string;
  readonly bytes: Uint8Array;
}
export interface Bundle {
  /** Canonical process definition texts, archived under their hash. */
  readonly processes: readonly string[];
  readonly blobs: readonly BundleBlob[];
  /** Parents before children within a ticket. */
  readonly events: readonly BundleEvent[];
  readonly sidecars: readonly BundleSidecar[];
  /** Signatures of the definitions in `processes` (they travel with their definition). */
  readonly processSidecars?: readonly BundleProcessSidecar[];
}

export const BUNDLE_MAGIC = Uint8Array.from(Buffer.from('TIKB', 'ascii'));
export const BUNDLE_VERSION = 1;
export const RecordKind = Object.freeze({ End: 0, Event: 1, Sidecar: 2, Blob: 3, Process: 4, ProcessSidecar: 5 });
/** Per-record limits: the admission limits every write path shares (`store/admission/limits.ts`). */
export const LIMITS = ADMISSION_LIMITS;

const uuidBytes = (ticket: string): Uint8Array => {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(ticket)) {
    throw new TikError('sync/bad-ticket', `not a ticket uuid: ${JSON.stringify(ticket)}`, { where: ticket, hint: 'tickets are lower-case uuids' });
  }
  return Uint8Array.from(Buffer.from(ticket.replace(/-/g, ''), 'hex'));
};
const uuidText = (b: Uint8Array): string => {
  const h = Buffer.from(b).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/**
 * Encodes a bundle in **unit order**, so a receiver can admit it while it streams: each event is
 * one unit — the definition it pins (with its signatures) when the bundle carries it and it was not
 * sent yet, the event, its sidecars, then the blob it attaches. What belongs to no event of the
 * bundle follows (sidecars of events the receiver already holds, unnamed records). A receiver
 * also accepts the older order (definitions, blobs, events, sidecars): docs/tik-sync.md.
 */
export function encodeBundle(b: Bundle): Uint8Array {
  const w = new ByteWriter();
  w.bytes(BUNDLE_MAGIC);
  w.byte(BUNDLE_VERSION);
  const processes = new Map(b.processes.map((p) => [sha256Hex(Buffer.from(p, 'utf8')), p] as const));
  const processSidecars = [...(b.processSidecars ?? [])];
  const blobs = new Map<string, BundleBlob[]>();
  for (const blob of b.blobs) {
    const key = `${blob.ticket} ${sha256Hex(blob.bytes)}`;
    blobs.set(key, [...(blobs.get(key) ?? []), blob]);
  }
  const sidecars = new Map<string, BundleSidecar[]>();
  const loose: BundleSidecar[] = [];
  const eventIds = new Set(b.events.map((e) => `${e.ticket} ${e.id}`));
  for (const s of b.sidecars) {
    const id = s.name.split('.')[0]!;
    if (!eventIds.has(`${s.ticket} ${id}`)) loose.push(s);
    else sidecars.set(`${s.ticket} ${id}`, [...(sidecars.get(`${s.ticket} ${id}`) ?? []), s]);
  }
  const writeProcess = (hash: string, text: string): void => {
    processes.delete(hash);
    w.byte(RecordKind.Process);
    w.lengthPrefixed(Buffer.from(text, 'utf8'));
    writeProcessSidecars((x) => x.name.startsWith(`${hash}.`));
  };
  const writeProcessSidecars = (which: (s: BundleProcessSidecar) => boolean): void => {
    for (const s of processSidecars.filter(which)) {
      processSidecars.splice(processSidecars.indexOf(s), 1);
      w.byte(RecordKind.ProcessSidecar);
      w.lengthPrefixed(Buffer.from(s.name, 'utf8'));
      w.lengthPrefixed(s.bytes);
    }
  };
  const writeBlob = (blob: BundleBlob): void => {
    w.byte(RecordKind.Blob);
    w.bytes(uuidBytes(blob.ticket));
    w.lengthPrefixed(blob.bytes);
  };
  const writeSidecar = (s: BundleSidecar): void => {
    w.byte(RecordKind.Sidecar);
    w.bytes(uuidBytes(s.ticket));
    w.lengthPrefixed(Buffer.from(s.name, 'utf8'));
    w.lengthPrefixed(s.bytes);
  };
  // a definition no event names goes first, where the older order put every definition
  const texts = b.events.map((e) => Buffer.from(e.bytes).toString('utf8'));
  for (const [hash, p] of [...processes]) if (!texts.some((t) => t.includes(`"${hash}"`))) writeProcess(hash, p);
  writeProcessSidecars((s) => !b.processes.some((p) => s.name.startsWith(`${sha256Hex(Buffer.from(p, 'utf8'))}.`)));
  for (const [i, e] of b.events.entries()) {
    // The event's own text names what travels with it: its pin and its attachment's hash.
    const text = texts[i]!;
    for (const [hash, p] of [...processes]) if (text.includes(`"${hash}"`)) writeProcess(hash, p);
    w.byte(RecordKind.Event);
    w.bytes(uuidBytes(e.ticket));
    w.bytes(idBytes(e.id));
    w.lengthPrefixed(e.bytes);
    for (const s of sidecars.get(`${e.ticket} ${e.id}`) ?? []) writeSidecar(s);
    sidecars.delete(`${e.ticket} ${e.id}`);
    for (const [key, list] of [...blobs]) {
      if (key.startsWith(`${e.ticket} `) && text.includes(`"${key.slice(e.ticket.length + 1)}"`)) {
        list.forEach(writeBlob);
        blobs.delete(key);
      }
    }
  }
  for (const s of [...sidecars.values()].flat()) writeSidecar(s);
  loose.forEach(writeSidecar);
  for (const list of blobs.values()) list.forEach(writeBlob);
  w.byte(RecordKind.End);
  return w.finish();
}

/** Decodes a whole bundle; a missing end record, an overrun or trailing bytes is an error. */
export function decodeBundle(body: Uint8Array): Bundle {
  const r = new ByteReader(body, 'sync bundle');
  const magic = r.bytes(4, 'magic');
  if (Buffer.compare(magic, BUNDLE_MAGIC) !== 0) {
    throw new TikError('sync/bad-bundle', 'the body is not a tik sync bundle (it does not start with "TIKB")', { where: 'sync bundle @0', hint: 'send application/octet-stream bundles as docs/tik-sync.md describes' });
  }
  const version = r.byte('version');
  if (version !== BUNDLE_VERSION) {
    throw new TikError('sync/version', `unsupported bundle version ${version} (this replica speaks 1)`, { where: 'sync bundle @4', hint: 'upgrade the older replica' });
  }
  const processes: string[] = [];
  const blobs: BundleBlob[] = [];
  const events: BundleEvent[] = [];
  const sidecars: BundleSidecar[] = [];
  const processSidecars: BundleProcessSidecar[] = [];
  for (;;) {
    const kind = r.byte('record kind (the end record is missing)');
    if (kind === RecordKind.End) break;
    if (kind === RecordKind.Process) processes.push(Buffer.from(r.lengthPrefixed('process text', LIMITS.process)).toString('utf8'));
    else if (kind === RecordKind.Blob) blobs.push({ ticket: uuidText(r.bytes(16, 'blob ticket')), bytes: r.lengthPrefixed('blob', LIMITS.blob) });
    else if (kind === RecordKind.Event) {
      const ticket = uuidText(r.bytes(16, 'event ticket'));
      const id = idText(r.bytes(ID_BYTES, 'event id'));
      events.push({ ticket, id, bytes: r.lengthPrefixed('event bytes', LIMITS.event) });
    } else if (kind === RecordKind.Sidecar) {
      const ticket = uuidText(r.bytes(16, 'sidecar ticket'));
      const name = Buffer.from(r.lengthPrefixed('sidecar name', LIMITS.name)).toString('utf8');
      sidecars.push({ ticket, name, bytes: r.lengthPrefixed('sidecar bytes', LIMITS.sidecar) });
    } else if (kind === RecordKind.ProcessSidecar) {
      const name = Buffer.from(r.lengthPrefixed('process sidecar name', LIMITS.name)).toString('utf8');
      processSidecars.push({ name, bytes: r.lengthPrefixed('process sidecar bytes', LIMITS.sidecar) });
    } else {
      throw new TikError('sync/bad-bundle', `sync bundle has an unknown record kind ${kind} at offset ${r.offset - 1}`, { where: `sync bundle @${r.offset - 1}`, hint: 'kinds are 0 end, 1 event, 2 sidecar, 3 blob, 4 process, 5 process signature' });
    }
  }
  if (!r.done) {
    throw new TikError('sync/bad-bundle', `sync bundle has ${body.length - r.offset} byte(s) after its end record`, { where: `sync bundle @${r.offset}`, hint: 'the body was corrupted in transit; retry' });
  }
  return { processes, blobs, events, sidecars, ...(processSidecars.length > 0 ? { processSidecars } : {}) };
}

/** A fetch request: `varint(count)` then `count` 32-byte ids. */
export function encodeIdList(ids: readonly string[]): Uint8Array {
  const w = new ByteWriter();
  w.varint(ids.length);
  for (const id of ids) w.bytes(idBytes(id));
  return w.finish();
}

export function decodeIdList(body: Uint8Array, max = 100_000): string[] {
  const r = new ByteReader(body, 'fetch request');
  const n = r.varint('id count');
  if (n > max) throw new TikError('sync/too-large', `fetch request asks for ${n} events, more than the limit ${max}`, { where: 'fetch request', hint: `ask in batches of at most ${max}` });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(idText(r.bytes(ID_BYTES, 'id')));
  if (!r.done) throw new TikError('sync/bad-message', `fetch request has ${body.length - r.offset} trailing byte(s)`, { where: `fetch request @${r.offset}`, hint: 'send varint(count) followed by exactly count 32-byte ids' });
  return ids;
}
