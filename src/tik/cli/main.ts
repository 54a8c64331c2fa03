#!/usr/bin/env node
/**
 * The `tik` command. Verbs are registered here as they are built; `--help` lists only what exists.
 */
import { Command } from 'commander';
import { packageVersion } from '../../core/version.js';

export function buildTikProgram(): Command {
  const program = new Command('tik')
    .description('tik: tickets as append-only sets of content-addressed events; stages are derived, never stored')
    .version(packageVersion())
    .option('--root <dir>', 'the store root (default: $TIK_ROOT or the current directory)')
    .option('--actor <name>', 'who is acting (default: $TIK_ACTOR)');
  return program;
}

await buildTikProgram().parseAsync(process.argv);
