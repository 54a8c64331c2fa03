import { readFileSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';

/** `tik actor add <name> <pubkey-file-or-line>`: allow a key to sign as `name` (the `actors` file). */
export function registerActor(verb: Command, ctx: CliContext): void {
  verb
    .command('add')
    .description('add an allowed-signers line: <name> namespaces="tik-*" ssh-ed25519 <key>')
    .argument('<name>', 'the actor name events carry in :event/actor')
    .argument('<pubkey>', 'a .pub file, or the public key line itself')
    .option('--json', 'print {name, fpr16, line}')
    .action(async (name: string, pubkey: string, opts: { json?: boolean }) => {
      const { openStore } = await import('../store-access.js');
      const line = readKeyArgument(ctx, pubkey);
      const store = await openStore(ctx);
      const entry = await store.addActor(name, line);
      if (opts.json) ctx.json({ name: entry.name, fpr16: entry.fpr16, line: entry.line });
      else ctx.out(`${entry.name} may sign with key ${entry.fpr16}`);
    });
}

function readKeyArgument(ctx: CliContext, arg: string): string {
  const path = ctx.path(arg);
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch {
    isFile = false;
  }
  return isFile ? readFileSync(path, 'utf8').trim() : arg.trim();
}
