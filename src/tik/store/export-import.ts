/**
 * `tik export <dir>` and `tik import <dir>` (tik-model.md §8.1): moving a store's contents through
 * a plain file tree in upstream's layout, whatever the backend on either side.
 *
 * Export writes (or adds to) a file store at `dir`. Import first checks the whole tree — every
 * event file's bytes hash to its name and parse as an event of the ticket whose directory holds
 * it, every blob and archived definition hashes to its name, every sidecar names an event of its
 * ticket — and writes nothing if anything is wrong; then it appends events with their sidecars
 * and blobs, adds content-addressed definitions, and adds the side files the target lacks (it
 * never replaces the target's `roles.edn`, `actors` or named definitions). Bytes are kept
 * verbatim, and admitted only when they are the canonical emission of what they parse to (upstream
 * re-emits parsed events; for a canonical file that is the same bytes). Importing twice changes
 * nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TikError } from '../errors.js';
import { detectLayout } from './file/discover.js';
import { FileStore } from './file/file-store.js';
import { initStore } from './file/open-file-store.js';
import { blobHashesOf, copyStore, diskBag, type CopyCounts, type CopyOptions } from './migrate.js';
import type { EventStore } from './store.js';
import { sha256Id } from './store-names.js';
import { admitBatch, admitProcessText, refuseLinks } from './admission/index.js';
import { MemoryStore } from './memory/memory-store.js';
import { CodedError } from '../../core/errors.js';

/** Writes everything in `source` to a file tree at `dir` (created if needed; added to if it is one). */
export async function exportStore(source: EventStore, dir: string, options: CopyOptions = {}): Promise<CopyCounts> {
  const target = await initStore(dir, { durable: false });
  if (source instanceof FileStore && source.base === target.base) {
    throw new TikError('store/export-onto-itself', `cannot export the store at ${dir} onto itself`, { where: dir, hint: 'export to a new directory' });
  }
  return copyStore(source, target, { ...options, sideFiles: 'all' });
}

/** One thing wrong with a tree to import. */
export interface ImportProblem {
  readonly file: string;
  readonly message: string;
}

/** Opens a file tree for import: it must be a file store (visible or under `.tik/`). */
export function openImportTree(dir: string): FileStore {
  const layout = detectLayout(dir);
  if (layout.kind !== 'file') {
    throw new TikError('import/not-a-tree', `${layout.root} is not a tik file tree (no tickets/ directory)`, {
      where: layout.root,
      hint: 'import a directory written by tik export (or a file store); for a SQLite store use tik store migrate',
    });
  }
  return new FileStore(layout.base, { durable: false });
}

/**
 * Everything that would make importing `tree` into `target` wrong; empty when it can be imported.
 * Every ticket goes through the admission check (`store/admission`) against `target`: canonical,
 * bounded, hash-true events whose parents are in the tree or the target, definitions that are
 * archived and hash to their names, blobs named by an attach of their own ticket, valid sidecars.
 * An event that would be held back (a parent or definition missing) is a problem here: an import
 * is all or nothing.
 */
export async function checkImportTree(tree: FileStore, target?: EventStore): Promise<readonly ImportProblem[]> {
  const problems: ImportProblem[] = [];
  const bag = diskBag(tree.base);
  const archived = new Map<string, boolean>();
  for (const hash of await tree.archivedProcessHashes()) {
    const file = `processes/by-hash/${hash}.edn`;
    const b = await bag.get(file);
    if (b === undefined) continue;
    try {
      admitProcessText(Buffer.from(b).toString('utf8'), hash, file);
      archived.set(hash, true);
    } catch (err) {
      problems.push({ file, message: messageOf(err) });
    }
  }
  const against = target ?? new MemoryStore();
  for (const t of await tree.ticketIds()) {
    const dir = `tickets/${t}/events`;
    try {
      const events = await tree.events(t);
      if (events.length === 0) {
        problems.push({ file: `tickets/${t}`, message: 'a ticket directory with no events (blobs or sidecars of no ticket)' });
        continue;
      }
      const sidecars = [];
      for (const name of await tree.sidecarNames(t)) {
        const bytes = await tree.readSidecar(t, name);
        if (bytes !== undefined) sidecars.push({ ticket: t, name, bytes });
      }
      const blobs = [];
      for (const hash of await blobHashesOf(tree, t)) {
        const b = await tree.readBlob(t, hash);
        if (b === undefined) continue;
        if (sha256Id(b) !== hash) problems.push({ file: `tickets/${t}/blobs/${hash}`, message: `its bytes hash to ${sha256Id(b)}, not to its name` });
        else blobs.push({ ticket: t, bytes: b });
      }
      const ok = await admitBatch(against, { processes: [], blobs, events: events.map((e) => ({ ticket: t, id: e.id, bytes: e.bytes })), sidecars }, { knownProcess: async (h) => archived.get(h) === true });
      for (const d of ok.deferred) problems.push({ file: `${dir}/${d.id}.edn`, message: `${d.message} (${d.code})` });
    } catch (err) {
      const where = err instanceof CodedError && err.where !== undefined ? err.where : dir;
      problems.push({ file: where, message: messageOf(err) });
    }
  }
  return problems;
}

function messageOf(err: unknown): string {
  return err instanceof CodedError ? `${err.message} (${err.code})` : err instanceof Error ? err.message : String(err);
}

/**
 * Imports the file tree at `dir` into `target`: checks the whole tree first (nothing is written if
 * any file is wrong: `import/bad-tree`), then appends. Returns what was copied; `newEvents` is 0
 * on a second import of the same tree.
 */
export async function importTree(dir: string, target: EventStore, options: CopyOptions = {}): Promise<CopyCounts> {
  if (isFile(dir)) return importArchive(dir, target, options);
  const tree = openImportTree(dir);
  if (target instanceof FileStore && target.base === tree.base) {
    throw new TikError('store/import-onto-itself', `cannot import the store at ${dir} into itself`, { where: dir });
  }
  // links are never followed: nothing outside the tree can be copied in
  refuseLinks(tree.base);
  const problems = await checkImportTree(tree, target);
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).map((p) => `\n  ${p.file}: ${p.message}`).join('');
    const more = problems.length > 5 ? `\n  … and ${problems.length - 5} more` : '';
    throw new TikError('import/bad-tree', `${dir}: ${problems.length} file(s) cannot be imported; nothing was written${shown}${more}`, {
      where: `${dir}/${problems[0]!.file}`,
      hint: 'an event file must hold the exact bytes its name hashes; restore the files from a replica or leave them out',
    });
  }
  return copyStore(tree, target, { ...options, sideFiles: 'missing' });
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Imports a gzipped tar of a tree (`tar czf store.tgz -C DIR .`, upstream's `import <tgz>`):
 * extracted with the system `tar` into a temporary directory, then imported as a tree.
 */
async function importArchive(file: string, target: EventStore, options: CopyOptions): Promise<CopyCounts> {
  const scratch = mkdtempSync(join(tmpdir(), 'tik-import-'));
  try {
    // --no-same-owner/permissions: the files are only read; absolute names and .. are refused by GNU tar
    const r = spawnSync('tar', ['-xzf', file, '-C', scratch, '--no-same-owner', '--no-same-permissions'], { encoding: 'utf8' });
    if (r.error !== undefined || r.status !== 0) {
      throw new TikError('import/bad-archive', `cannot extract ${file}: ${(r.stderr || String(r.error ?? '')).trim().split('\n')[0] ?? 'tar failed'}`, {
        where: file,
        hint: 'give a directory, or a .tgz made with `tar czf store.tgz -C <tree> .`',
      });
    }
    try {
      return await importTree(scratch, target, options);
    } catch (e) {
      // name the archive, not the scratch directory
      if (e instanceof TikError) throw new TikError(e.code, e.message.split(scratch).join(file), { where: (e.where ?? file).split(scratch).join(file), hint: e.hint, cause: e });
      throw e;
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
