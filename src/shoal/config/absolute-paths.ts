/**
 * File-backed sources name paths relative to the config file; the registry keeps them absolute, so
 * every command that writes or compares a config's catalog (serve, `registry plan|apply`, query)
 * sees the same source definitions whatever its working directory.
 */
import { isAbsolute, resolve } from 'node:path';
import type { CatalogModel } from './model.js';

export function withAbsolutePaths<T extends CatalogModel>(model: T, baseDir: string): T {
  const sources = model.sources.map((s) => (s.path && !isAbsolute(s.path) ? { ...s, path: resolve(baseDir, s.path) } : s));
  return { ...model, sources };
}
