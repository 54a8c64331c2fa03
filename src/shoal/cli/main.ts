#!/usr/bin/env node
/**
 * The `shoal` command. Subcommands are registered here as they are built; `--help` lists only
 * what exists. Exit codes: 0 success, 1 failure, 2 usage error, 3 rejected by a check.
 */
import { Command } from 'commander';
import { isCodedError } from '../../core/errors.js';
import { packageVersion } from '../../core/version.js';
import { registerConfigCheck } from './commands/config-check.js';
import { registerCredentials } from './commands/credentials.js';
import { registerDemo } from './commands/demo.js';
import { registerFleet } from './commands/fleet.js';
import { registerIntrospect } from './commands/introspect.js';
import { registerMvCheck } from './commands/mv-check.js';
import { registerQuery } from './commands/query.js';
import { registerRegistry } from './commands/registry.js';
import { registerServe } from './commands/serve.js';

export function buildShoalProgram(): Command {
  const program = new Command('shoal')
    .description('shoal: a governed federated SQL gateway that runs as a fleet of stateless instances')
    .version(packageVersion())
    .exitOverride((err) => {
      // commander's own usage errors exit 2; --help and --version exit 0.
      process.exit(err.exitCode === 0 ? 0 : 2);
    });
  registerDemo(program);
  registerServe(program);
  registerQuery(program);
  registerConfigCheck(program);
  registerIntrospect(program);
  registerRegistry(program);
  registerMvCheck(program);
  registerCredentials(program);
  registerFleet(program);
  return program;
}

try {
  await buildShoalProgram().parseAsync(process.argv);
} catch (e) {
  process.stderr.write(`${isCodedError(e) ? e.describe() : `shoal: ${(e as Error).message}`}\n`);
  process.exitCode = 1;
}
