import type { Command } from 'commander';
import { checkConfig } from '../../config/load-config.js';
import { formatIssue, type ConfigIssue } from '../../config/config-issue.js';

const line = (kind: string, i: ConfigIssue): string => `${kind}: ${formatIssue(i)}${i.hint ? `\n  hint: ${i.hint}` : ''}`;

/** `shoal config check --config FILE [--json]`: every error and warning, exit 1 on any error. */
export function registerConfigCheck(program: Command): void {
  const config = program.command('config').description('work with shoal configuration files');
  config
    .command('check')
    .description('validate a config file: every error and warning with its key path and line; exit 1 on errors')
    .requiredOption('--config <file>', 'the YAML config file')
    .option('--json', 'print {ok, errors, warnings} as JSON')
    .action((opts: { config: string; json?: boolean }) => {
      const r = checkConfig({ path: opts.config });
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ ok: r.ok, errors: r.errors, warnings: r.warnings }, null, 2)}\n`);
      } else {
        for (const e of r.errors) process.stderr.write(`${line('error', e)}\n`);
        for (const w of r.warnings) process.stderr.write(`${line('warning', w)}\n`);
        const c = r.config;
        if (r.ok && c) {
          process.stdout.write(
            `${opts.config}: ok — ${c.sources.length} source(s), ${c.domains.length} domain(s), ${c.tables.length} table(s), ` +
              `${c.roles.length} role(s), ${c.rls_rules.length} RLS rule(s)${r.warnings.length ? `, ${r.warnings.length} warning(s)` : ''}\n`,
          );
        } else {
          process.stderr.write(`${opts.config}: ${r.errors.length} error(s)\n`);
        }
      }
      process.exitCode = r.ok ? 0 : 1;
    });
}
