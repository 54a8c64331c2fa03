import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { emit, ednMap, readEdn } from '../../src/tik/edn/index.js';
import { Instant, Keyword, Uuid, type EdnValue } from '../../src/tik/edn/value.js';
import { mintEvent, parseProcess, type ProcessDef, type TikEvent } from '../../src/tik/kernel/index.js';

/** An 8-stage linear process like upstream's benchmark ticket (d8fe995d): each stage needs one fact. */
export const BENCH_PROCESS = `{:process/id :bench :process/version 1
 :process/facts {[:f1] :int}
 :process/stages [{:stage/id :s1 :hint "h" :guards [[:fact [:f1]]]}
                  {:stage/id :s2 :hint "h" :after [:s1] :guards [[:fact [:f2]]]}
                  {:stage/id :s3 :hint "h" :after [:s2] :guards [[:fact [:f3]]]}
                  {:stage/id :s4 :hint "h" :after [:s3] :guards [[:fact [:f4]]]}
                  {:stage/id :s5 :hint "h" :after [:s4] :guards [[:fact [:f5]] [:artifact "repro/"]]}
                  {:stage/id :s6 :hint "h" :after [:s5] :guards [[:fact [:f6]]]}
                  {:stage/id :s7 :hint "h" :after [:s6] :guards [[:fact [:f7]] [:elapsed-since :ticket/create "PT1H"]]}
                  {:stage/id :s8 :hint "h" :after [:s7] :stage/sticky? true :guards [[:fact [:f8]]]}]}`;

const k = (t: string): Keyword => Keyword.of(t);
const T0 = Date.UTC(2026, 6, 8, 10);

/** Create a file store at `root` holding the bench process (named and archived by hash). */
export function benchStore(root: string): ProcessDef {
  mkdirSync(join(root, 'tickets'), { recursive: true });
  mkdirSync(join(root, 'processes', 'by-hash'), { recursive: true });
  writeFileSync(join(root, 'processes', 'bench.edn'), BENCH_PROCESS);
  const def = parseProcess(readEdn(BENCH_PROCESS));
  writeFileSync(join(root, 'processes', 'by-hash', `${def.hash}.edn`), emit(def.raw));
  return def;
}

/** Deterministic uuid number `n`. */
export const benchTicket = (n: number): string => `0be4c700-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/**
 * Write one ticket of `count` events: a create, then a linear history of asserts over the eight
 * facts (with a retract, a dispute and an attach now and then), one second apart. `title` replaces
 * the create's short title (to make large events).
 */
export function writeTicket(root: string, def: ProcessDef, ticket: string, count: number, title?: string): TikEvent[] {
  const dir = join(root, 'tickets', ticket, 'events');
  mkdirSync(dir, { recursive: true });
  const uuid = new Uuid(ticket);
  const events: TikEvent[] = [];
  const put = (type: string, actor: string, body: [EdnValue, EdnValue][]) => {
    const prev = events[events.length - 1];
    const { event, text } = mintEvent({
      ticket: uuid,
      type: k(type),
      actor,
      at: new Instant(T0 + events.length * 1000),
      parents: prev ? [prev.id] : [],
      body: ednMap(body),
    });
    writeFileSync(join(dir, `${event.id}.edn`), text);
    events.push(event);
  };
  put('ticket/create', 'bench', [
    [k('ticket/title'), title ?? `bench ${ticket.slice(-6)}`],
    [k('ticket/process'), k('bench')],
    [k('ticket/process-version'), def.version],
    [k('ticket/process-hash'), def.hash],
  ]);
  for (let i = 1; i < count; i++) {
    const path = [k(`f${(i % 8) + 1}`)];
    if (i % 97 === 0) put('fact/retract', 'bench', [[k('fact/path'), path], [k('retract/reason'), 'churn']]);
    else if (i % 89 === 0) put('fact/dispute', 'reviewer', [[k('fact/path'), path], [k('dispute/reason'), 'check']]);
    else if (i % 101 === 0) put('artifact/attach', 'bench', [[k('artifact/path'), `repro/${i}.log`], [k('artifact/hash'), 'sha256-bench']]);
    else put('fact/assert', i % 3 === 0 ? 'reviewer' : 'bench', [[k('fact/path'), path], [k('fact/value'), BigInt(i)]]);
  }
  return events;
}
