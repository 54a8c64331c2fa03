import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { readSourceSchema } from '../../check/read-source-schema.js';
import { tablesFromSchema } from '../../check/tables-from-schema.js';
import { didYouMean } from '../../config/did-you-mean.js';
import { ShoalError } from '../../errors.js';
import { readInstanceConfig } from './open-instance.js';

interface IntrospectOpts {
  config: string;
  source: string;
  table?: string;
  schema?: string;
  domain?: string;
  json?: boolean;
}

/**
 * `shoal introspect --config FILE --source ID [--table T] [--schema S] [--domain D] [--json]`:
 * read a source's catalog and print its tables as config (`tables:` YAML), so no column has to be
 * typed by hand. Reads only; writes nothing.
 */
export function registerIntrospect(program: Command): void {
  program
    .command('introspect')
    .description(
      "connect to one source of a config and print its tables and columns as config: a `tables:` YAML block in the config's shape, " +
        "with each column's data_type mapped to the config's type names (reads only; writes nothing)",
    )
    .requiredOption('--config <file>', 'the YAML config file that declares the source')
    .requiredOption('--source <id>', 'the id of the source to read')
    .option('--table <name>', 'only this table')
    .option('--schema <name>', 'only tables of this schema (PostgreSQL schema, MySQL database)')
    .option('--domain <id>', 'the domain_id to write (default: the config\'s only domain, else "default")')
    .option('--json', 'print the catalog as JSON: {source, tables: [{schema, table, columns: [{name, nativeType, configType, primaryKey?}]}]}')
    .action(async (opts: IntrospectOpts) => {
      const { config, baseDir } = readInstanceConfig(opts.config, { quiet: true });
      const source = config.sources.find((s) => s.id === opts.source);
      if (!source) {
        const guess = didYouMean(opts.source, config.sources.map((s) => s.id));
        throw new ShoalError('CONFIG_UNKNOWN_SOURCE', `the config declares no source "${opts.source}"`, {
          where: '--source',
          hint: guess ? `did you mean "${guess}"?` : `declared sources: ${config.sources.map((s) => s.id).join(', ') || '(none)'}`,
        });
      }
      const schema = await readSourceSchema(source, { baseDir: baseDir ?? dirname(resolve(opts.config)), filter: { table: opts.table, schema: opts.schema } });
      if (opts.table !== undefined && schema.tables.length === 0) {
        throw new ShoalError('SOURCE_TABLE_NOT_FOUND', `source "${source.id}" has no table "${opts.table}"${opts.schema ? ` in schema ${opts.schema}` : ''}`, {
          where: '--table',
          hint: `run shoal introspect --config ${opts.config} --source ${source.id} without --table to list its tables`,
        });
      }
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ source: source.id, tables: schema.tables }, null, 2)}\n`);
        return;
      }
      const domain = opts.domain ?? (config.domains.length === 1 ? config.domains[0]!.id : 'default');
      process.stdout.write(stringify({ tables: tablesFromSchema(source, schema, domain) }, { lineWidth: 0 }));
    });
}
