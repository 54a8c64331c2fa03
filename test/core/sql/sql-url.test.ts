import { describe, expect, it } from 'vitest';
import { parseSqlUrl, redactUrl } from '../../../src/core/sql/sql-url.js';

describe('database URLs as upstream writes them', () => {
  it('sqlite:///relative is relative to the base dir; sqlite://// is absolute', () => {
    expect(parseSqlUrl('sqlite:///data/registry.db', '/srv/shoal')).toEqual({ dialect: 'sqlite', path: '/srv/shoal/data/registry.db' });
    expect(parseSqlUrl('sqlite:////var/lib/shoal/registry.db', '/srv/shoal')).toEqual({ dialect: 'sqlite', path: '/var/lib/shoal/registry.db' });
    expect(parseSqlUrl('sqlite+pysqlite:///r.db', '/x')).toEqual({ dialect: 'sqlite', path: '/x/r.db' });
    expect(parseSqlUrl('sqlite:///:memory:')).toEqual({ dialect: 'sqlite', path: ':memory:' });
    expect(parseSqlUrl('sqlite://')).toEqual({ dialect: 'sqlite', path: ':memory:' });
  });

  it('postgresql:// and postgres:// (with or without a driver suffix) are PostgreSQL', () => {
    expect(parseSqlUrl('postgresql://u:p@h:5432/db')).toEqual({ dialect: 'postgres', url: 'postgresql://u:p@h:5432/db' });
    expect(parseSqlUrl('postgres://h/db')).toEqual({ dialect: 'postgres', url: 'postgresql://h/db' });
    expect(parseSqlUrl('postgresql+asyncpg://h/db')).toEqual({ dialect: 'postgres', url: 'postgresql://h/db' });
  });

  it('anything else is a coded error that does not echo a password', () => {
    expect(() => parseSqlUrl('mysql://u:secret@h/db')).toThrow(expect.objectContaining({ code: 'SQL_URL_UNSUPPORTED' }));
    try {
      parseSqlUrl('mysql://u:secret@h/db');
    } catch (e) {
      expect((e as Error).message).not.toContain('secret');
    }
    for (const bad of ['sqlite:/relative.db', 'sqlite:///', 'sqlite:////', 'sqlite://host/x.db']) {
      expect(() => parseSqlUrl(bad), bad).toThrow(expect.objectContaining({ code: 'SQL_URL_INVALID' }));
    }
    expect(redactUrl('postgresql://me:pw@host/db')).toBe('postgresql://me:***@host/db');
  });
});
