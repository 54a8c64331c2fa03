import type { Command } from 'commander';
import { emit, readEdn } from '../../edn/index.js';
import { Keyword } from '../../edn/value.js';
import { TikError } from '../../errors.js';
import { lint, parseProcess } from '../../kernel/index.js';
import type { CliContext } from '../context.js';
import { openStore } from '../store-access.js';
import { appendChain, body } from '../write-events.js';

/**
 * `tik new <process> [--title T]`: lint the named definition `processes/<process>.edn` (errors
 * refuse), archive its canonical bytes by hash, and write a `:ticket/create` pinning name,
 * version and hash. Prints the new ticket id.
 */
export function registerNew(program: Command, ctx: CliContext): void {
  program
    .command('new')
    .description('open a ticket following a process (processes/<process>.edn)')
    .argument('<process>', 'the process name (file stem under processes/)')
    .option('--title <title>', 'the ticket title (default: the process name)')
    .option('--json', 'print {ticket, event, process: {id, version, hash}}')
    .action(async (name: string, opts: { title?: string; json?: boolean }) => {
      const store = await openStore(ctx);
      const text = await store.readNamedProcess(name);
      if (text === undefined) {
        const known = await store.listProcesses();
        throw new TikError('cli/unknown-process', `no process definition processes/${name}.edn in ${store.location}`, {
          where: name,
          hint: known.length > 0 ? `known processes: ${known.join(', ')}` : 'write a definition at processes/<name>.edn first',
        });
      }
      const file = `processes/${name}.edn`;
      const def = parseProcess(readEdn(text, file), file);
      const { errors } = lint(def);
      if (errors.length > 0) {
        throw new TikError('process/lint', `${file} fails lint: ${errors.map((e) => `${e.code}: ${e.message}`).join('; ')}`, {
          where: file,
          hint: `run tik lint ${file} and fix the errors; a ticket never pins a definition that fails lint`,
        });
      }
      const ticket = ctx.io.randomUuid();
      const title = opts.title ?? name;
      // Validate the create before archiving anything, so a refused ticket writes nothing.
      const canonical = emit(def.raw);
      const [create] = await appendChain(ctx, store, ticket, [], [
        {
          type: 'ticket/create',
          body: body({
            'ticket/title': title,
            'ticket/process': Keyword.of(name),
            'ticket/process-version': def.version,
            'ticket/process-hash': def.hash,
          }),
        },
      ], async () => {
        const hash = await store.archiveProcess(canonical);
        if (hash !== def.hash) {
          throw new TikError('store/hash-mismatch', `archived ${file} as ${hash}, expected ${def.hash}`, { where: file });
        }
      });
      if (opts.json) {
        ctx.json({ ticket, event: create!.id, process: { id: def.id.toString(), version: Number(def.version), hash: def.hash } });
      } else {
        ctx.out(ticket);
      }
    });
}
