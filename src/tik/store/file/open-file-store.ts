/**
 * Opening and creating file stores at a root directory (`tik init [--hidden]`).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { TikError } from '../../errors.js';
import { detectLayout } from './discover.js';
import { FileStore, type FileStoreOptions } from './file-store.js';
import { HIDDEN_DIR, TICKETS_DIR, byHashDir } from './file-layout.js';

/**
 * Opens the file store at `root` (visible, or hidden under `.tik/`). Throws `store/not-found`
 * when there is none and `store/not-file` when the root holds a SQLite store.
 */
export function openFileStore(root: string, options: FileStoreOptions = {}): FileStore {
  const layout = detectLayout(root);
  if (layout.kind === 'file') return new FileStore(layout.base, options);
  if (layout.kind === 'sqlite') {
    throw new TikError('store/not-file', `${layout.path} is a SQLite store, not a file store`, {
      where: layout.root,
      hint: 'open it with the SQLite store, or `tik store migrate --to file`',
    });
  }
  throw new TikError('store/not-found', `no tik store at ${layout.root}`, {
    where: layout.root,
    hint: 'run `tik init` there, or set TIK_ROOT / --root to an existing store',
  });
}

/**
 * Creates a file store at `root` (`tickets/`, `processes/by-hash/`), under `.tik/` when
 * `hidden`. Idempotent on an existing store of the same kind; refuses to create a second layout
 * beside an existing one.
 */
export async function initStore(root: string, options: { readonly hidden?: boolean } & FileStoreOptions = {}): Promise<FileStore> {
  const layout = detectLayout(root);
  const hidden = options.hidden ?? false;
  if (layout.kind === 'sqlite') {
    throw new TikError('store/exists', `${layout.root} already holds a SQLite store`, { where: layout.path });
  }
  if (layout.kind === 'file' && layout.hidden !== hidden) {
    throw new TikError('store/exists', `${layout.root} already holds a ${layout.hidden ? 'hidden (.tik/)' : 'visible'} store`, {
      where: layout.base,
      hint: 'use the existing store, or choose another directory',
    });
  }
  const base = hidden ? join(layout.root, HIDDEN_DIR) : layout.root;
  try {
    await mkdir(join(base, TICKETS_DIR), { recursive: true });
    await mkdir(byHashDir(base), { recursive: true });
  } catch (e) {
    throw new TikError('store/io', `cannot create a store at ${base} (${(e as { code?: string }).code ?? 'error'})`, {
      where: base,
      cause: e,
      hint: 'check that the directory is writable',
    });
  }
  return new FileStore(base, options);
}
