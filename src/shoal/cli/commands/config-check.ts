import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { bindAgainstSources, type SourceReach } from '../../check/source-binding.js';
import { locateIssues } from '../../check/locate-issues.js';
import { bindStatically, type BindingReport } from '../../check/static-binding.js';
import { checkConfig } from '../../check/load-config.js';
import { formatIssue, type ConfigIssue } from '../../config/config-issue.js';

const line = (kind: string, i: ConfigIssue): string => `${kind}: ${formatIssue(i)}${i.hint ? `\n  hint: ${i.hint}` : ''}`;

/** Issues not already reported at the same path with the same message. */
function merge(into: readonly ConfigIssue[], more: readonly ConfigIssue[]): ConfigIssue[] {
  const seen = new Set(into.map((i) => `${i.path}\u0000${i.message}`));
  return [...into, ...more.filter((i) => !seen.has(`${i.path}\u0000${i.message}`))];
}

/**
 * `shoal config check --config FILE [--connect] [--json]`: every error and warning, exit 1 on
 * any error. Without --connect it binds RLS filters, masks and view_sql against what the config
 * declares; with --connect, against every source's real catalog.
 */
export function registerConfigCheck(program: Command): void {
  const config = program.command('config').description('work with shoal configuration files');
  config
    .command('check')
    .description(
      'validate a config file: every error and warning with its key path and line; exit 1 on errors. ' +
        'RLS filters, masks and view_sql are bound against the declared tables and columns; with --connect, ' +
        'every source is connected to and every table, column, column type, mask and RLS filter is bound against its real schema',
    )
    .requiredOption('--config <file>', 'the YAML config file')
    .option('--connect', 'connect to every source (needs its credentials in the environment) and bind the config against its catalog')
    .option('--json', 'print {ok, errors, warnings} as JSON (with --connect also sources: [{id, ok, tables}])')
    .action(async (opts: { config: string; connect?: boolean; json?: boolean }) => {
      const r = checkConfig({ path: opts.config });
      let errors: ConfigIssue[] = [...r.errors];
      let warnings: ConfigIssue[] = [...r.warnings];
      let sources: readonly SourceReach[] | undefined;
      const c = r.config;
      if (c) {
        let bound: BindingReport;
        if (opts.connect) {
          const connected = await bindAgainstSources(c, { baseDir: dirname(resolve(opts.config)) });
          sources = connected.sources;
          bound = connected;
        } else {
          bound = bindStatically(c);
        }
        errors = merge(errors, locateIssues(opts.config, bound.errors));
        warnings = merge(warnings, locateIssues(opts.config, bound.warnings));
      }
      const ok = c !== undefined && errors.length === 0;
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ ok, errors, warnings, ...(sources ? { sources } : {}) }, null, 2)}\n`);
      } else {
        for (const e of errors) process.stderr.write(`${line('error', e)}\n`);
        for (const w of warnings) process.stderr.write(`${line('warning', w)}\n`);
        const reached = sources ? `; connected to ${sources.filter((s) => s.ok).length} of ${sources.length} source(s)` : '';
        if (ok && c) {
          process.stdout.write(
            `${opts.config}: ok — ${c.sources.length} source(s), ${c.domains.length} domain(s), ${c.tables.length} table(s), ` +
              `${c.roles.length} role(s), ${c.rls_rules.length} RLS rule(s)${warnings.length ? `, ${warnings.length} warning(s)` : ''}${reached}\n`,
          );
        } else {
          process.stderr.write(`${opts.config}: ${errors.length} error(s)${reached}\n`);
        }
      }
      process.exitCode = ok ? 0 : 1;
    });
}
