/**
 * CancelRequest support: each connection gets a process id and a random secret (sent in
 * BackendKeyData); a CancelRequest naming both cancels whatever that connection is running. The
 * secret is compared in constant time, and a wrong one is ignored silently, as PostgreSQL does,
 * so a CancelRequest cannot be used to probe which process ids exist.
 */
import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

export interface CancelKey {
  readonly pid: number;
  readonly secret: number;
}

interface Entry {
  readonly secret: Buffer;
  readonly cancel: () => void;
}

export class CancelRegistry {
  private readonly entries = new Map<number, Entry>();

  /** A fresh key for a connection whose running query `cancel` stops. */
  register(cancel: () => void): CancelKey {
    let pid: number;
    do pid = randomInt(1, 2 ** 31 - 1);
    while (this.entries.has(pid));
    const secret = randomBytes(4);
    this.entries.set(pid, { secret, cancel });
    return { pid, secret: secret.readInt32BE(0) };
  }

  unregister(pid: number): void {
    this.entries.delete(pid);
  }

  /** Cancel `pid`'s running query when `secret` is its own; true when it matched. */
  cancel(pid: number, secret: number): boolean {
    const e = this.entries.get(pid);
    const given = Buffer.alloc(4);
    given.writeInt32BE(secret | 0);
    // compared even for an unknown pid, so the timing does not tell whether it exists
    const ok = timingSafeEqual(given, e?.secret ?? Buffer.alloc(4)) && e !== undefined;
    if (ok) e.cancel();
    return ok;
  }
}
