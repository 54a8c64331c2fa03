/**
 * Database URLs as upstream (SQLAlchemy) writes them:
 * - `sqlite:///relative/path.db` (relative to `baseDir`, default the working directory),
 *   `sqlite:////absolute/path.db`, `sqlite:///:memory:`; a driver suffix (`sqlite+pysqlite://`) is ignored;
 * - `postgresql://…` or `postgres://…` (a driver suffix such as `postgresql+asyncpg://` is ignored).
 */
import { isAbsolute, resolve } from 'node:path';
import { CodedError } from '../errors.js';

export type SqlTarget =
  | { readonly dialect: 'sqlite'; readonly path: string /* ':memory:' or an absolute path */ }
  | { readonly dialect: 'postgres'; readonly url: string };

export function parseSqlUrl(url: string, baseDir: string = process.cwd()): SqlTarget {
  const scheme = /^([A-Za-z][A-Za-z0-9]*)(\+[A-Za-z0-9_]+)?:/.exec(url);
  const name = scheme?.[1]?.toLowerCase();
  if (name === 'sqlite') {
    const rest = url.slice(scheme![0].length).replace(/[?#].*$/, '');
    if (rest === '' || rest === '//' || rest === '///:memory:' || rest === '//:memory:') return { dialect: 'sqlite', path: ':memory:' };
    if (!rest.startsWith('///') || rest === '///' || rest === '////') {
      throw new CodedError('SQL_URL_INVALID', `invalid SQLite URL "${url}"`, {
        hint: 'write sqlite:///relative/path.db or sqlite:////absolute/path.db',
      });
    }
    const path = decodeURIComponent(rest.slice(3));
    return { dialect: 'sqlite', path: isAbsolute(path) ? path : resolve(baseDir, path) };
  }
  if (name === 'postgresql' || name === 'postgres') {
    return { dialect: 'postgres', url: `postgresql:${url.slice(scheme![0].length)}` };
  }
  throw new CodedError('SQL_URL_UNSUPPORTED', `unsupported database URL "${redactUrl(url)}"`, {
    hint: 'use sqlite:///relative.db, sqlite:////absolute/path.db or postgresql://user@host/db',
  });
}

/** The URL with any password replaced by `***`, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^/@:]*:)[^/@]*@/, '$1***@');
}
