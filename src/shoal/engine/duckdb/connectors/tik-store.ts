/**
 * tik file stores as a source (`type: tik`, `path`: the store root). Three tables, derived on
 * read from each ticket's log, its pinned definition, the roles register and `now` (tik's T1:
 * derived beats declared), and landed per query like any other source:
 *
 * - `tickets(ticket, title, process, process_version, process_hash, current, reached, created_at, created_by)`
 *   — `current`/`reached` are lists of stage keywords (`':triaged'`), NULL when the ticket's
 *   definition cannot be resolved;
 * - `facts(ticket, path, status, value, by, at)` — `path` dotted (`'resolution.ref'`), `status`
 *   one of present|disputed|retracted|conflicted, `value` canonical EDN text (`':high'`);
 * - `events(ticket, id, type, actor, at, parents)` — every admitted event.
 *
 * Times are UTC TIMESTAMPs. A pushed-down `ticket = …` or `ticket IN (…)` predicate reads only
 * those tickets' logs; other predicates are left to the engine.
 */
import { emit } from '../../../../tik/edn/index.js';
import { Instant, Keyword, type EdnValue } from '../../../../tik/edn/value.js';
import { factStatusByKey, status } from '../../../../tik/kernel/index.js';
import { dottedPath, keywordPath } from '../../../../tik/kernel/edn-access.js';
import { LoadContext, loadTicket, openFileStore, type LoadedTicket } from '../../../../tik/store/index.js';
import type { EventStore } from '../../../../tik/store/index.js';
import { isCodedError } from '../../../../core/errors.js';
import type { CatalogEntry } from '../../catalog-entry.js';
import type { SimplePredicate } from '../../../sources/simple-predicate.js';
import { ShoalError } from '../../../errors.js';
import type { LandingColumn } from '../duckdb-types.js';
import type { LandedRows, LandingConnector, LandingNeed } from './connector.js';

const toTimestamp = (e: string): string => `epoch_ms(CAST(${e} AS BIGINT))`;
const toList = (e: string): string => `CAST(CAST(${e} AS JSON) AS VARCHAR[])`;

const text = (name: string): LandingColumn => ({ name, stage: 'VARCHAR', type: 'VARCHAR' });
const time = (name: string): LandingColumn => ({ name, stage: 'DOUBLE', type: 'TIMESTAMP', convert: toTimestamp });
const list = (name: string): LandingColumn => ({ name, stage: 'VARCHAR', type: 'VARCHAR[]', convert: toList });

/** The three tables a tik store exposes, with their columns. */
export const TIK_TABLES: Readonly<Record<string, readonly LandingColumn[]>> = Object.freeze({
  tickets: [
    text('ticket'), text('title'), text('process'), { name: 'process_version', stage: 'INTEGER', type: 'INTEGER' }, text('process_hash'),
    list('current'), list('reached'), time('created_at'), text('created_by'),
  ],
  facts: [text('ticket'), text('path'), text('status'), text('value'), text('by'), time('at')],
  events: [text('ticket'), text('id'), text('type'), text('actor'), time('at'), list('parents')],
});

const textOf = (v: EdnValue | undefined): string | null => (v === undefined || v === null ? null : typeof v === 'string' ? v : emit(v));

function storeError(entry: CatalogEntry, e: unknown): ShoalError {
  if (e instanceof ShoalError) return e;
  const code = isCodedError(e) ? e.code : (e as { code?: string } | null)?.code;
  return new ShoalError('SOURCE_UNAVAILABLE', `tik source "${entry.source.id}" cannot be read${code ? ` (${code})` : ''}`, {
    where: `sources.${entry.source.id}.path`,
    hint: 'check that path is the root of a tik file store (tik init) and is readable by shoal',
    cause: e,
  });
}

/** Tickets named by pushed-down `ticket = x` / `ticket IN (…)` conjuncts, or undefined for all. */
function ticketFilter(predicates: readonly SimplePredicate[]): Set<string> | undefined {
  let keep: Set<string> | undefined;
  for (const p of predicates) {
    if (p.column !== 'ticket') continue;
    const vals = p.op === '=' ? [p.value] : p.op === 'IN' ? p.values : undefined;
    if (vals === undefined) continue;
    const mine = new Set(vals.map((v) => String(v).toLowerCase()));
    keep = keep === undefined ? mine : new Set([...keep].filter((t) => mine.has(t)));
  }
  return keep;
}

function ticketRow(t: LoadedTicket, now: Instant): unknown[] {
  const s = t.state;
  const createdAt = s.createdAt?.ms ?? null;
  if (t.definition !== undefined && t.roles !== undefined) {
    try {
      const st = status(t.definition, t.events, now, t.roles);
      return [t.ticket, st.title, st.process.id, st.process.version, st.process.hash, JSON.stringify(st.current), JSON.stringify(st.reached), createdAt, s.createdBy ?? null];
    } catch {
      // A ticket whose stages cannot be derived degrades to what its log says; it never fails the board.
    }
  }
  const version = typeof s.processVersion === 'bigint' ? Number(s.processVersion) : null;
  return [t.ticket, textOf(s.title), textOf(s.process), version, textOf(s.processHash), null, null, createdAt, s.createdBy ?? null];
}

function factRows(t: LoadedTicket): unknown[][] {
  const rows: unknown[][] = [];
  for (const [key, entry] of t.state.facts) {
    const first = entry.path[0];
    // As `tik status`: the title and links are not facts of the board.
    if (first instanceof Keyword && (first.text === 'link' || (first.text === 'title' && entry.path.length === 1))) continue;
    const kws = keywordPath(entry.path);
    const path = kws ? dottedPath(kws) : emit(Object.freeze([...entry.path]));
    const s = factStatusByKey(t.state, key);
    switch (s.status) {
      case 'absent':
        break;
      case 'present':
        rows.push([t.ticket, path, 'present', emit(s.value), s.by, s.at.ms]);
        break;
      case 'disputed':
        rows.push([t.ticket, path, 'disputed', entry.current?.kind === 'value' ? emit(entry.current.value) : null, s.by, s.at.ms]);
        break;
      case 'retracted':
        rows.push([t.ticket, path, 'retracted', null, s.by, s.at.ms]);
        break;
      case 'conflicted':
        rows.push([t.ticket, path, 'conflicted', null, null, null]);
        break;
    }
  }
  return rows;
}

function eventRows(t: LoadedTicket): unknown[][] {
  return t.state.log.map((e) => [t.ticket, e.id, e.type.toString(), e.actor, e.at.ms, JSON.stringify(e.parents)]);
}

/** @param clock epoch milliseconds: the `now` stages are derived at. */
export function tikStoreLanding(clock: () => number = () => Date.now()): LandingConnector {
  const open = (entry: CatalogEntry): EventStore => {
    const root = entry.source.path;
    if (root === undefined || root === '') {
      throw new ShoalError('SOURCE_CONFIG_INVALID', `tik source "${entry.source.id}" has no path`, {
        where: `sources.${entry.source.id}.path`,
        hint: 'set path to the root of the tik file store',
      });
    }
    try {
      return openFileStore(root);
    } catch (e) {
      throw storeError(entry, e);
    }
  };
  return Object.freeze({
    kind: 'land' as const,
    async fetch(entry: CatalogEntry, need: LandingNeed, signal?: AbortSignal): Promise<LandedRows> {
      const columns = TIK_TABLES[entry.table];
      if (columns === undefined) {
        throw new ShoalError('SOURCE_QUERY_FAILED', `tik source "${entry.source.id}" has no table "${entry.table}"`, {
          where: `tables.${entry.table}`,
          hint: `a tik store has the tables ${Object.keys(TIK_TABLES).join(', ')}`,
        });
      }
      const store = open(entry);
      const only = ticketFilter(need.predicates);
      const now = new Instant(clock());
      const rows: unknown[][] = [];
      try {
        const ids = (await store.ticketIds()).filter((id) => only === undefined || only.has(id));
        const context = new LoadContext(store);
        for (const id of ids) {
          signal?.throwIfAborted();
          const t = await loadTicket(store, id, context);
          if (t.stored.length === 0) continue;
          if (entry.table === 'tickets') rows.push(ticketRow(t, now));
          else if (entry.table === 'facts') rows.push(...factRows(t));
          else rows.push(...eventRows(t));
        }
      } catch (e) {
        if (signal?.aborted) throw new ShoalError('QUERY_CANCELLED', 'the query was cancelled', { where: `sources.${entry.source.id}` });
        throw storeError(entry, e);
      }
      const filter = only === undefined ? '' : ` WHERE ticket IN (${[...only].sort().join(', ')})`;
      return { sourceSql: `tik ${entry.table}${filter}`, params: [], columns, rows };
    },
    async ping(entry: CatalogEntry): Promise<void> {
      try {
        await open(entry).ticketIds();
      } catch (e) {
        throw storeError(entry, e);
      }
    },
  });
}
