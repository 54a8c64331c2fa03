/**
 * Shared by the file connectors: a source `path` is either the file itself, or a directory
 * holding one `<table>.<ext>` per registered table.
 */
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CatalogEntry } from '../../catalog-entry.js';
import { ShoalError } from '../../../errors.js';

export function filePathFor(entry: CatalogEntry, extension: string): string {
  const p = entry.source.path;
  if (p === undefined || p === '') {
    throw new ShoalError('SOURCE_CONFIG_INVALID', `${entry.source.type} source "${entry.source.id}" has no path`, {
      where: `sources.${entry.source.id}.path`,
      hint: `set path to the ${extension} file (or a directory of <table>.${extension} files)`,
    });
  }
  const abs = resolve(p);
  let isDir = false;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    // A missing path is reported when the view is created or read, as SOURCE_UNAVAILABLE.
  }
  return isDir ? join(abs, `${entry.table}.${extension}`) : abs;
}
