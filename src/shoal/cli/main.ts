#!/usr/bin/env node
/**
 * The `shoal` command. Subcommands are registered here as they are built; `--help` lists only
 * what exists.
 */
import { Command } from 'commander';
import { packageVersion } from '../../core/version.js';

export function buildShoalProgram(): Command {
  return new Command('shoal')
    .description('shoal: a governed federated SQL gateway that runs as a fleet of stateless instances')
    .version(packageVersion());
}

await buildShoalProgram().parseAsync(process.argv);
