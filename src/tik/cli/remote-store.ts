import { MemoryStore } from '../store/memory/memory-store.js';
import { closeStore, openStore as openStoreAt } from '../store/open-store.js';
import type { EventStore } from '../store/store.js';
import { httpTransport, syncWith, type SyncTransport } from '../sync/index.js';
import type { CliContext } from './context.js';

/** The bearer token this run sends to a replica (`TIK_TOKEN`), as headers. */
export function tokenHeaders(ctx: CliContext): Record<string, string> {
  const t = ctx.io.env.TIK_TOKEN;
  return t !== undefined && t !== '' ? { authorization: `Bearer ${t}` } : {};
}

interface RemoteSession {
  readonly store: MemoryStore;
  readonly transport: SyncTransport;
}

const sessions = new WeakMap<CliContext, RemoteSession>();

/**
 * `tik --remote URL <verb>`: the verb runs here, against an in-memory copy of the replica pulled
 * by sync, so events are minted — and, with `TIK_KEY`, signed — on this machine; `pushRemote`
 * then sends what the verb wrote through the replica's sync push, where its admission policy
 * judges it (a `signed` replica checks each event's signature against its own actors register).
 * Named definitions (for `new`) come from the local store, if there is one.
 */
export async function openRemoteStore(ctx: CliContext, url: string, localRoot: string | undefined): Promise<EventStore> {
  const existing = sessions.get(ctx);
  if (existing) return existing.store;
  const transport = httpTransport(url, { headers: tokenHeaders(ctx) });
  const store = new MemoryStore(`remote ${url}`);
  await syncWith(store, transport, { direction: 'pull' });
  if (localRoot !== undefined) {
    const local = await openStoreAt(localRoot).catch(() => undefined);
    if (local) {
      try {
        for (const name of await local.listProcesses()) {
          const text = await local.readNamedProcess(name);
          if (text !== undefined) await store.writeNamedProcess(name, text);
        }
      } finally {
        await closeStore(local).catch(() => undefined);
      }
    }
  }
  sessions.set(ctx, { store, transport });
  return store;
}

/** Push what this run wrote to the remote replica (nothing when the run opened no remote). */
export async function pushRemote(ctx: CliContext): Promise<void> {
  const s = sessions.get(ctx);
  if (!s) return;
  sessions.delete(ctx);
  await syncWith(s.store, s.transport, { direction: 'push' });
}
