import type { Command } from 'commander';
import { toWireValue } from '../../server/json-value.js';
import { collectVar, openInstance } from './open-instance.js';

interface QueryOpts {
  config: string;
  role?: string;
  var?: Record<string, string>;
  json?: boolean;
}

/** Render rows as an aligned text table (human output). */
export function formatTable(columns: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const cells = rows.map((r) => r.map((v) => {
    const w = toWireValue(v);
    return w === null ? 'NULL' : typeof w === 'object' ? JSON.stringify(w) : String(w);
  }));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (vals: readonly string[]): string => vals.map((v, i) => v.padEnd(widths[i] ?? 0)).join(' | ').trimEnd();
  return [line(columns), widths.map((w) => '-'.repeat(w)).join('-+-'), ...cells.map(line), `(${rows.length} row${rows.length === 1 ? '' : 's'})`].join('\n');
}

/**
 * `shoal query --config FILE [--role R] [--var k=v…] [--json] SQL`. The local CLI is the operator:
 * it already holds the config and its secrets, so it may act as any role and set any session value.
 */
export function registerQuery(program: Command): void {
  program
    .command('query')
    .description(
      'run one governed SQL query through an in-process instance (same pipeline as POST /data/sql). ' +
        'This is the operator: whoever can read the config already holds its secrets, so --role may be any role ' +
        'and --var may set any session variable (no credential is asked for; the network API never trusts these)',
    )
    .requiredOption('--config <file>', 'the YAML config file')
    .option('--role <role>', 'the role to query as (any registered role: the operator is not authenticated)')
    .option('--var <name=value>', 'a session variable, e.g. provisa.user_region=eu (repeatable; any variable, as the operator)', collectVar, {})
    .option('--json', 'print the same body POST /data/sql returns: {columns, rows}')
    .argument('<sql>', 'the SQL text (PostgreSQL-flavoured)')
    .action(async (sql: string, opts: QueryOpts) => {
      // one query, nothing else waiting for the event loop: no planner threads to start
      const instance = await openInstance(opts.config, { quiet: opts.json === true, plannerThreads: 0 });
      try {
        const ac = new AbortController();
        const result = await instance.query({ sql, role: opts.role, vars: opts.var ?? {} }, ac.signal);
        const rows: (readonly unknown[])[] = [];
        for await (const batch of result.batches) rows.push(...batch);
        if (opts.json) {
          process.stdout.write(`${JSON.stringify({ columns: result.columns, rows: rows.map((r) => r.map(toWireValue)) })}\n`);
        } else {
          process.stdout.write(`${formatTable(result.columns.map((c) => c.name), rows)}\n`);
        }
      } finally {
        await instance.close();
      }
    });
}
