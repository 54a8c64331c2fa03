import { randomUUID } from 'node:crypto';
import { TikError } from '../errors.js';
import { ownsTicket, shardText, type ShardSpec } from './shard-spec.js';

/**
 * A fresh random ticket id that `shard` owns: `tik new` on a replica of shard i opens a ticket of
 * shard i, so the new ticket never has to move. Draws random v4 uuids until one hashes into the
 * shard (M draws on average for M shards).
 */
export function ownedUuid(shard: ShardSpec, random: () => string = randomUUID): string {
  for (let i = 0; i < 1000 * shard.count; i++) {
    const id = random();
    if (ownsTicket(shard, id)) return id;
  }
  throw new TikError('shard/no-id', `could not draw a ticket id for shard ${shardText(shard)}`, { hint: 'the random source repeats; this is a bug' });
}
