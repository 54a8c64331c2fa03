import { TikError } from '../errors.js';
import { MAX_BOUND, MIN_BOUND, minimalBound, TimestampCodec, type Bound } from './bound.js';
import { ByteReader, ByteWriter } from './byte-io.js';
import { FINGERPRINT_BYTES, type ItemSet } from './item-set.js';
import { ID_BYTES, idText } from './sync-item.js';

/** The first byte of every reconciliation message (Negentropy protocol v1). */
export const PROTOCOL_VERSION = 0x61;

export const Mode = Object.freeze({ Skip: 0, Fingerprint: 1, IdList: 2 });

export interface ReconcileOptions {
  /** Sub-ranges a mismatched range splits into (b). Default 16. */
  readonly branching?: number;
  /** Ranges with fewer items than this are answered with their id list. Default 2·b. */
  readonly idListThreshold?: number;
  /**
   * Soft cap on an outgoing message in bytes (0 = none). When reached, the rest of the universe
   * is answered with one fingerprint and reconciled in later rounds. At least 4096. Default 0.
   */
  readonly frameSizeLimit?: number;
}

/** What an initiator learned from one round. */
export interface ReconcileStep {
  /** The next message to send, or undefined when reconciliation is complete. */
  readonly next: Uint8Array | undefined;
  /** Ids the initiator holds that the responder lacks (`sha256-<hex>`). */
  readonly have: readonly string[];
  /** Ids the responder holds that the initiator lacks. */
  readonly need: readonly string[];
}

/**
 * Range-based set reconciliation (Meyer; Negentropy v1 wire format), pure and transport-free.
 * The responder keeps no state between messages: any replica can answer any round.
 */
export class Reconciler {
  private readonly b: number;
  private readonly threshold: number;
  private readonly limit: number;

  constructor(
    private readonly set: ItemSet,
    options: ReconcileOptions = {},
  ) {
    this.b = options.branching ?? 16;
    this.threshold = options.idListThreshold ?? this.b * 2;
    this.limit = options.frameSizeLimit ?? 0;
    if (!(this.b >= 2)) throw new TikError('sync/options', `branching must be at least 2, got ${this.b}`, { hint: 'use 16' });
    if (this.limit !== 0 && this.limit < 4096) throw new TikError('sync/options', `frameSizeLimit must be 0 or at least 4096, got ${this.limit}`, { hint: 'use 0 (no limit) or e.g. 1048576' });
  }

  /** The first message: the whole universe as one range with its fingerprint. */
  initiate(): Uint8Array {
    const w = new ByteWriter();
    w.byte(PROTOCOL_VERSION);
    new TimestampCodec().write(w, MAX_BOUND);
    w.varint(Mode.Fingerprint);
    w.bytes(this.set.fingerprint(0, this.set.size));
    return w.finish();
  }

  /** Responder side: answer one message (stateless). */
  respond(message: Uint8Array): Uint8Array {
    return this.process(message, false).out;
  }

  /** Initiator side: process a response; `next` is undefined when both sets are known to each other. */
  reconcile(message: Uint8Array): ReconcileStep {
    const { out, have, need } = this.process(message, true);
    return { next: out.length > 1 ? out : undefined, have, need };
  }

  private process(message: Uint8Array, initiator: boolean): { out: Uint8Array; have: string[]; need: string[] } {
    const r = new ByteReader(message, 'reconciliation message');
    const version = r.byte('protocol version');
    if (version !== PROTOCOL_VERSION) {
      throw new TikError('sync/version', `unsupported reconciliation protocol version 0x${version.toString(16)} (this replica speaks 0x61)`, {
        where: 'reconciliation message @0',
        hint: 'upgrade the older replica',
      });
    }
    const items = this.set.items;
    const w = new ByteWriter();
    w.byte(PROTOCOL_VERSION);
    const tsIn = new TimestampCodec();
    const tsOut = new TimestampCodec();
    const have: string[] = [];
    const need: string[] = [];
    let prevBound: Bound = MIN_BOUND;
    let prevIndex = 0;
    let skip = false;
    const doSkip = (): void => {
      if (!skip) return;
      skip = false;
      tsOut.write(w, prevBound);
      w.varint(Mode.Skip);
    };
    while (!r.done) {
      const currBound = tsIn.read(r);
      const mode = r.varint('range mode');
      const lower = prevIndex;
      const upper = this.set.lowerBound(currBound, lower);
      if (mode === Mode.Skip) {
        skip = true;
      } else if (mode === Mode.Fingerprint) {
        const theirs = r.bytes(FINGERPRINT_BYTES, 'fingerprint');
        const ours = this.set.fingerprint(lower, upper);
        if (Buffer.compare(theirs, ours) === 0) skip = true;
        else {
          doSkip();
          this.splitRange(w, tsOut, lower, upper, currBound);
        }
      } else if (mode === Mode.IdList) {
        const n = r.varint('id list length');
        if (n * ID_BYTES > message.length) {
          throw new TikError('sync/truncated', `reconciliation message claims ${n} ids but is only ${message.length} bytes`, { where: `reconciliation message @${r.offset}`, hint: 'retry the sync' });
        }
        const theirs = new Set<string>();
        for (let i = 0; i < n; i++) theirs.add(Buffer.from(r.bytes(ID_BYTES, 'id')).toString('hex'));
        for (let i = lower; i < upper; i++) {
          const k = Buffer.from(items[i]!.id).toString('hex');
          if (theirs.has(k)) theirs.delete(k);
          else if (initiator) have.push(idText(items[i]!.id));
        }
        if (initiator) {
          skip = true;
          for (const k of theirs) need.push(`sha256-${k}`);
        } else {
          doSkip();
          this.writeIdList(w, tsOut, lower, upper, currBound);
        }
      } else {
        throw new TikError('sync/bad-message', `reconciliation message has an unknown range mode ${mode}`, { where: `reconciliation message @${r.offset}`, hint: 'modes are 0 skip, 1 fingerprint, 2 id list' });
      }
      prevIndex = upper;
      prevBound = currBound;
      if (this.limit !== 0 && w.length + 200 > this.limit && !r.done) {
        // Out of room: answer everything above this point with one fingerprint; later rounds refine it.
        doSkip();
        tsOut.write(w, MAX_BOUND);
        w.varint(Mode.Fingerprint);
        w.bytes(this.set.fingerprint(upper, items.length));
        return { out: w.finish(), have, need };
      }
    }
    return { out: w.finish(), have, need };
  }

  /** A responder's id list, cut short (the rest as a fingerprint) when it would overflow the frame. */
  private writeIdList(w: ByteWriter, ts: TimestampCodec, lower: number, upper: number, upperBound: Bound): void {
    const items = this.set.items;
    let end = upper;
    if (this.limit !== 0) {
      const room = Math.floor((this.limit - w.length - 200) / ID_BYTES);
      if (upper - lower > room) end = lower + Math.max(1, room);
    }
    const bound = end === upper ? upperBound : minimalBound(items[end - 1]!, items[end]!);
    ts.write(w, bound);
    w.varint(Mode.IdList);
    w.varint(end - lower);
    for (let i = lower; i < end; i++) w.bytes(items[i]!.id);
    if (end < upper) {
      ts.write(w, upperBound);
      w.varint(Mode.Fingerprint);
      w.bytes(this.set.fingerprint(end, upper));
    }
  }

  private splitRange(w: ByteWriter, ts: TimestampCodec, lower: number, upper: number, upperBound: Bound): void {
    const n = upper - lower;
    if (n < this.threshold) {
      ts.write(w, upperBound);
      w.varint(Mode.IdList);
      w.varint(n);
      for (let i = lower; i < upper; i++) w.bytes(this.set.items[i]!.id);
      return;
    }
    const per = Math.floor(n / this.b);
    const extra = n % this.b;
    let curr = lower;
    for (let i = 0; i < this.b; i++) {
      const size = per + (i < extra ? 1 : 0);
      const fp = this.set.fingerprint(curr, curr + size);
      curr += size;
      const bound = curr === upper ? upperBound : minimalBound(this.set.items[curr - 1]!, this.set.items[curr]!);
      ts.write(w, bound);
      w.varint(Mode.Fingerprint);
      w.bytes(fp);
    }
  }
}
