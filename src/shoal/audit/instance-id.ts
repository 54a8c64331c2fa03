import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** An id for this process in the fleet's shared audit log: `host:pid:random`. */
export function newInstanceId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}
