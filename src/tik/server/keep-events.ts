import { Keyword } from '../edn/value.js';
import type { TikEvent } from '../kernel/index.js';
import { sha256Id } from '../store/store-names.js';
import type { Bundle, BundleEvent } from '../sync/bundle.js';

const NAMES = [Keyword.of('artifact/hash'), Keyword.of('ticket/process-hash'), Keyword.of('process/hash')];

/** The event id a sidecar name (`<event-id>.sig.<fpr16>`, `<event-id>.witness.<fpr16>`) belongs to. */
export const sidecarEvent = (name: string): string => name.slice(0, Math.max(0, name.indexOf('.')));

/**
 * What is left of `bundle` once a receive filter refused some of its events: the `kept` events,
 * the sidecars of none of the `refused` ones (nor the `refusedSidecars`), and only the
 * definitions and blobs that the newly kept events (`keptParsed`) name — a refused event's
 * definition or attachment does not ride in on its own — with the signatures of those definitions.
 */
export function keepEvents(bundle: Bundle, kept: readonly BundleEvent[], keptParsed: readonly TikEvent[], refused: ReadonlySet<string>, refusedSidecars: ReadonlySet<string> = new Set()): Bundle {
  const named = new Set<string>();
  for (const ev of keptParsed) for (const k of NAMES) {
    const v = ev.body.get(k);
    if (typeof v === 'string') named.add(v);
  }
  const processes = bundle.processes.filter((t) => named.has(sha256Id(Buffer.from(t, 'utf8'))));
  const definitions = new Set(processes.map((t) => sha256Id(Buffer.from(t, 'utf8'))));
  return {
    processes,
    ...(bundle.processSidecars ? { processSidecars: bundle.processSidecars.filter((s) => definitions.has(sidecarEvent(s.name))) } : {}),
    blobs: bundle.blobs.filter((b) => named.has(sha256Id(b.bytes))),
    events: kept,
    sidecars: bundle.sidecars.filter((s) => !refused.has(sidecarEvent(s.name)) && !refusedSidecars.has(`${s.ticket}/${s.name}`)),
  };
}
