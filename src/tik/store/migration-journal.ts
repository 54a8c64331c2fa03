/**
 * The journal of a `tik store migrate`, so that a migration killed at any point is never left
 * ambiguous (both backends present, the store refusing to open): the next command that opens the
 * store, or a re-run of the migration, finishes it or undoes it.
 *
 * `<dir>/.tik-migrate.json` is written (atomically) before the first byte is copied, in the
 * directory of the disk store involved (the source's, or the target's when the source is
 * PostgreSQL). Its phase decides the recovery:
 * - `copying`: the copy may be partial, the source is whole → roll back: remove what the
 *   migration created (the target), keep the source;
 * - `removing-source`: the copy was complete, checked and flushed → roll forward: finish removing
 *   the source.
 * The journal is removed last, so recovery is idempotent: a crash during recovery recovers again.
 */
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../core/fs-atomic.js';
import { TikError } from '../errors.js';
import { HIDDEN_DIR } from './file/file-layout.js';
import { PostgresStore } from './postgres/postgres-store.js';

export const JOURNAL_FILE = '.tik-migrate.json';

/** One side of a migration, as the journal names it. */
export interface JournalSide {
  readonly kind: 'file' | 'sqlite' | 'postgres';
  /** The store directory (file, sqlite) or the PostgreSQL URL. */
  readonly location: string;
}

export interface MigrationJournal {
  readonly phase: 'copying' | 'removing-source';
  readonly source: JournalSide;
  readonly target: JournalSide;
  /** In place: side files (processes/, roles.edn, …) are shared and stay. */
  readonly keepSideFiles: boolean;
}

/** Writes (or advances) the journal in `dir`. */
export async function writeJournal(dir: string, journal: MigrationJournal): Promise<void> {
  await writeFileAtomic(join(dir, JOURNAL_FILE), JSON.stringify(journal), { durable: true });
}

export async function clearJournal(dir: string): Promise<void> {
  await rm(join(dir, JOURNAL_FILE), { force: true });
}

function readJournal(dir: string): MigrationJournal | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, JOURNAL_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const j = JSON.parse(text) as MigrationJournal;
    if ((j.phase === 'copying' || j.phase === 'removing-source') && j.source?.kind && j.target?.kind) return j;
  } catch {
    // fall through
  }
  throw new TikError('store/bad-journal', `${join(dir, JOURNAL_FILE)} is not a migration journal tik can read`, {
    where: join(dir, JOURNAL_FILE),
    hint: 'a migration was interrupted; check which backend holds the complete store (tik verify), remove the other and the journal',
  });
}

const SQLITE_FILES = ['tik.db', 'tik.db-wal', 'tik.db-shm'];
const SIDE = ['actors', 'roles.edn', 'oidc.edn', 'effects.edn', 'pipelines.edn', 'processes', 'roots', 'jwks'];

/** Removes one side's log (and, unless shared, its side files). */
async function removeSide(side: JournalSide, keepSideFiles: boolean): Promise<void> {
  if (side.kind === 'postgres') {
    const pg = await PostgresStore.open(side.location);
    try {
      await pg.drop();
    } finally {
      await pg.close();
    }
    return;
  }
  if (side.kind === 'file') await rm(join(side.location, 'tickets'), { recursive: true, force: true });
  else {
    for (const f of SQLITE_FILES) await rm(join(side.location, f), { force: true });
    await rm(join(side.location, 'blobs'), { recursive: true, force: true });
  }
  if (!keepSideFiles) for (const f of SIDE) await rm(join(side.location, f), { recursive: true, force: true });
}

/** What recovery did. */
export type Recovery = 'none' | 'rolled-back' | 'completed';

/**
 * Finishes or undoes an interrupted migration whose journal is in `root` or `root/.tik`.
 * Called before a store is opened, and by `tik store migrate` itself.
 */
export async function recoverMigration(root: string): Promise<Recovery> {
  for (const dir of [root, join(root, HIDDEN_DIR)]) {
    const j = readJournal(dir);
    if (j === undefined) continue;
    if (j.phase === 'copying') {
      // the target may be partial; it is whatever the migration created (the side files stay
      // when they are shared with the source, else they were copied and go with the target)
      await removeSide(j.target, j.keepSideFiles);
      await clearJournal(dir);
      return 'rolled-back';
    }
    await removeSide(j.source, j.keepSideFiles);
    await clearJournal(dir);
    return 'completed';
  }
  return 'none';
}
