import type { Command } from 'commander';
import { emit, ednMap, readEdn } from '../../edn/index.js';
import { Instant, Keyword, Uuid } from '../../edn/value.js';
import { TikError } from '../../errors.js';
import { factStatus, lint, mintEvent, parseProcess, reduce } from '../../kernel/index.js';
import type { CliContext } from '../context.js';
import { parseInstantText } from '../instant-arg.js';
import { periodStart, recurTicketId } from '../recur-period.js';
import { envSigningKey, openStore, parseStoredEvents, signStoredEvent } from '../store-access.js';

const k = (t: string): Keyword => Keyword.of(t);

/**
 * `tik recur <process> --period LABEL [--at INST] [--title T]`: open the ticket for one period of
 * a recurring process, deterministically (§9): the id is derived from the process name and the
 * label, `:at` is the period's start, so every replica mints byte-identical events. A no-op when
 * a ticket of that process already has that `[:period]`.
 */
export function registerRecur(program: Command, ctx: CliContext): void {
  program
    .command('recur')
    .description('open the ticket of one period of a recurring process (deterministic id and instant)')
    .argument('<process>', 'the process name (processes/<process>.edn)')
    .requiredOption('--period <label>', 'yyyy, yyyy-Qn, yyyy-MM, yyyy-MM-dd, yyyy-Www, or free-form with --at')
    .option('--at <instant>', 'the instant of the events (default: the start of the period)')
    .option('--title <title>', 'the title (default "<process> <label>")')
    .option('--json', 'print {ticket, created, events: [ids]}')
    .action(async (name: string, opts: { period: string; at?: string; title?: string; json?: boolean }) => {
      const label = opts.period;
      const start = periodStart(label);
      const atMs = opts.at !== undefined ? parseInstantText(opts.at, '--at').ms : start;
      if (atMs === undefined) {
        throw new TikError('cli/usage', `"${label}" is a free-form period: give its instant with --at`, {
          where: '--period',
          hint: 'or use yyyy, yyyy-Qn, yyyy-MM, yyyy-MM-dd or yyyy-Www',
        });
      }
      const actor = ctx.actor();
      const key = envSigningKey(ctx);
      const store = await openStore(ctx);
      const procKw = k(name);
      for (const id of await store.ticketIds()) {
        const state = reduce(parseStoredEvents(id, await store.events(id), store.location));
        const period = factStatus(state, [k('period')]);
        const periodText = period.status === 'present' ? (typeof period.value === 'string' ? period.value : emit(period.value)) : undefined;
        if (state.process === procKw && periodText === label) {
          if (opts.json) ctx.json({ ticket: id, created: false, events: [] });
          else ctx.out(`already have ${id} for ${name} ${label}`);
          return;
        }
      }
      const text = await store.readNamedProcess(name);
      if (text === undefined) {
        throw new TikError('cli/unknown-process', `no process definition processes/${name}.edn in ${store.location}`, {
          where: name,
          hint: 'write the definition at processes/<name>.edn first',
        });
      }
      const file = `processes/${name}.edn`;
      const def = parseProcess(readEdn(text, file), file);
      const { errors } = lint(def);
      if (errors.length > 0) {
        throw new TikError('process/lint', `${file} fails lint: ${errors.map((e) => `${e.code}: ${e.message}`).join('; ')}`, {
          where: file,
          hint: `run tik lint ${file} and fix the errors`,
        });
      }
      const ticket = recurTicketId(name, label);
      const at = new Instant(atMs);
      const create = mintEvent({
        ticket: new Uuid(ticket),
        type: k('ticket/create'),
        actor,
        at,
        parents: [],
        body: ednMap([
          [k('ticket/title'), opts.title ?? `${name} ${label}`],
          [k('ticket/process'), procKw],
          [k('ticket/process-version'), def.version],
          [k('ticket/process-hash'), def.hash],
        ]),
      });
      const fact = mintEvent({
        ticket: new Uuid(ticket),
        type: k('fact/assert'),
        actor,
        at,
        parents: [create.event.id],
        body: ednMap([
          [k('fact/path'), [k('period')]],
          [k('fact/value'), label],
        ]),
      });
      await store.archiveProcess(emit(def.raw));
      for (const m of [create, fact]) {
        await store.append(ticket, m.event.id, Buffer.from(m.text, 'utf8'));
        if (key) await signStoredEvent(store, ticket, m.event.id, key);
      }
      if (opts.json) ctx.json({ ticket, created: true, events: [create.event.id, fact.event.id] });
      else ctx.out(ticket);
    });
}
