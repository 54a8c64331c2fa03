/**
 * Backend messages of the PostgreSQL protocol (version 3.0), each built as one framed Buffer: a
 * type byte, an Int32 length that counts itself, then the body. Strings are UTF-8 and lengths
 * are byte lengths, never character counts.
 */

/** One RowDescription field. */
export interface FieldDescription {
  readonly name: string;
  readonly typeOid: number;
  /** pg_type.typlen (-1 for variable length). */
  readonly typeSize: number;
  readonly typeModifier: number;
  /** 0 text, 1 binary. */
  readonly format: number;
}

/** Transaction status in ReadyForQuery: idle, in a transaction block, in a failed block. */
export type TxStatus = 'I' | 'T' | 'E';

class Builder {
  private buf = Buffer.allocUnsafe(64);
  private at = 0;

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  int8(v: number): this {
    this.room(1);
    this.buf[this.at++] = v & 0xff;
    return this;
  }

  int16(v: number): this {
    this.room(2);
    this.buf.writeInt16BE(v, this.at);
    this.at += 2;
    return this;
  }

  int32(v: number): this {
    this.room(4);
    this.buf.writeInt32BE(v, this.at);
    this.at += 4;
    return this;
  }

  cstring(s: string): this {
    // a NUL inside would end the string early on the client: PostgreSQL text never holds one
    const b = Buffer.from(s.replace(/\0/g, ''), 'utf8');
    this.room(b.length + 1);
    b.copy(this.buf, this.at);
    this.at += b.length;
    this.buf[this.at++] = 0;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
    return this;
  }

  frame(type: string): Buffer {
    const out = Buffer.allocUnsafe(this.at + 5);
    out[0] = type.charCodeAt(0);
    out.writeInt32BE(this.at + 4, 1);
    this.buf.copy(out, 5, 0, this.at);
    return out;
  }
}

const empty = (type: string): Buffer => new Builder().frame(type);

export const authenticationOk = (): Buffer => new Builder().int32(0).frame('R');
export const authenticationCleartextPassword = (): Buffer => new Builder().int32(3).frame('R');
export const parameterStatus = (name: string, value: string): Buffer => new Builder().cstring(name).cstring(value).frame('S');
export const backendKeyData = (pid: number, secret: number): Buffer => new Builder().int32(pid).int32(secret).frame('K');
export const readyForQuery = (status: TxStatus): Buffer => new Builder().int8(status.charCodeAt(0)).frame('Z');
export const parseComplete = (): Buffer => empty('1');
export const bindComplete = (): Buffer => empty('2');
export const closeComplete = (): Buffer => empty('3');
export const noData = (): Buffer => empty('n');
export const portalSuspended = (): Buffer => empty('s');
export const emptyQueryResponse = (): Buffer => empty('I');
export const commandComplete = (tag: string): Buffer => new Builder().cstring(tag).frame('C');

export function parameterDescription(oids: readonly number[]): Buffer {
  const b = new Builder().int16(oids.length);
  for (const o of oids) b.int32(o);
  return b.frame('t');
}

export function rowDescription(fields: readonly FieldDescription[]): Buffer {
  const b = new Builder().int16(fields.length);
  for (const f of fields) b.cstring(f.name).int32(0).int16(0).int32(f.typeOid).int16(f.typeSize).int32(f.typeModifier).int16(f.format);
  return b.frame('T');
}

/** One row; a null cell is length -1. */
export function dataRow(cells: readonly (Buffer | null)[]): Buffer {
  let size = 2;
  for (const c of cells) size += 4 + (c ? c.length : 0);
  const out = Buffer.allocUnsafe(size + 5);
  out[0] = 0x44; // 'D'
  out.writeInt32BE(size + 4, 1);
  out.writeInt16BE(cells.length, 5);
  let at = 7;
  for (const c of cells) {
    if (c === null) {
      out.writeInt32BE(-1, at);
      at += 4;
    } else {
      out.writeInt32BE(c.length, at);
      c.copy(out, at + 4);
      at += 4 + c.length;
    }
  }
  return out;
}

/** The fields of an ErrorResponse / NoticeResponse. */
export interface ErrorFields {
  readonly severity: 'ERROR' | 'FATAL' | 'NOTICE' | 'WARNING';
  readonly sqlstate: string;
  readonly message: string;
  readonly detail?: string;
  readonly hint?: string;
  /** 1-based character position in the query string. */
  readonly position?: number;
}

export function errorResponse(e: ErrorFields, type: 'E' | 'N' = 'E'): Buffer {
  const b = new Builder();
  // 'S' is localized, 'V' is not (clients such as pgjdbc read 'V' when present)
  b.int8(0x53).cstring(e.severity).int8(0x56).cstring(e.severity).int8(0x43).cstring(e.sqlstate).int8(0x4d).cstring(e.message);
  if (e.detail) b.int8(0x44).cstring(e.detail);
  if (e.hint) b.int8(0x48).cstring(e.hint);
  if (e.position !== undefined) b.int8(0x50).cstring(String(e.position));
  b.int8(0);
  return b.frame(type);
}
