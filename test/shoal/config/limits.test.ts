import { describe, expect, it } from 'vitest';
import { checkConfigText, loadConfig } from '../../../src/shoal/check/load-config.js';
import { DEFAULT_LIMITS } from '../../../src/shoal/config/limits.js';

const BASE = 'domains: [{id: sales}]\n';

describe('server.limits', () => {
  it('every limit has a default when the config names none', () => {
    expect(loadConfig(BASE).config.limits).toEqual(DEFAULT_LIMITS);
    expect(DEFAULT_LIMITS.request_timeout).toBe(60);
  });

  it('reads upstream request_timeout and shoal\'s own limits, numbers given as text too', () => {
    const { config, warnings } = loadConfig(`${BASE}server:
  limits:
    request_timeout: "2.5"
    max_sql_bytes: 1024
    max_sql_literals: 10
    max_sql_tokens: 50
    max_sql_depth: 8
    max_concurrent_queries: 3
    planner_threads: "0"
    plan_cache_size: "0"
    memory_limit: 512MB
    max_temp_directory_size: 2GiB
`);
    expect(warnings).toEqual([]);
    expect(config.limits).toEqual({
      request_timeout: 2.5,
      max_sql_bytes: 1024,
      max_sql_literals: 10,
      max_sql_tokens: 50,
      max_sql_depth: 8,
      max_concurrent_queries: 3,
      planner_threads: 0,
      plan_cache_size: 0,
      memory_limit: '512MB',
      max_temp_directory_size: '2GiB',
    });
  });

  it('upstream limit keys shoal does not enforce are warnings, typos are errors with a suggestion', () => {
    const r = checkConfigText(`${BASE}server:\n  limits:\n    default_row_limit: 100\n    request_timout: 5\n`);
    expect(r.warnings.map((w) => w.path)).toEqual(['server.limits.default_row_limit']);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ code: 'CONFIG_UNKNOWN_KEY', path: 'server.limits.request_timout', hint: 'did you mean "request_timeout"?' });
  });

  it.each([
    ['request_timeout: 0', 'server.limits.request_timeout'],
    ['request_timeout: -1', 'server.limits.request_timeout'],
    ['request_timeout: 100000', 'server.limits.request_timeout'],
    ['max_sql_bytes: 0', 'server.limits.max_sql_bytes'],
    ['max_sql_bytes: 99999999', 'server.limits.max_sql_bytes'],
    ['max_concurrent_queries: 1.5', 'server.limits.max_concurrent_queries'],
    ['planner_threads: -1', 'server.limits.planner_threads'],
    ['planner_threads: 17', 'server.limits.planner_threads'],
    ['plan_cache_size: -1', 'server.limits.plan_cache_size'],
    ['memory_limit: lots', 'server.limits.memory_limit'],
    ['memory_limit: "1GB; SET x=1"', 'server.limits.memory_limit'],
  ])('refuses %s, naming the key and line', (line, path) => {
    const r = checkConfigText(`${BASE}server:\n  limits:\n    ${line}\n`);
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toMatchObject({ path, line: 4 });
  });
});
