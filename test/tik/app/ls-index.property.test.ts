// Law (issue 18, ADR 0013): for any store and any history — writes, signatures, time passing or
// going back, register changes, the index deleted or damaged between runs — `tik ls`, `tik ls
// --where` and `tik search` through the derived index answer exactly as they do deriving every
// ticket from the log.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, supportStore, tempDir, tik } from '../cli/harness.js';

// Both time guards, so windows end at creation + 3 h and 2 h after each attestation.
const TIMED = `{:process/id :timed :process/version 1 :process/guard-vocab 2
 :process/facts {[:category] [:enum :billing :technical]}
 :process/stages [{:stage/id :open :guards []}
                  {:stage/id :aged :after [:open] :guards [[:elapsed-since :ticket/create "PT3H"] [:not [:fact [:category]]]]}
                  {:stage/id :fresh :after [:open] :guards [[:attested-within :ci "PT2H"]]}
                  {:stage/id :done :after [:open] :stage/sticky? true :guards [[:fact [:category]] [:stage-reached :fresh]]}]}`;

const BASE = Date.parse('2026-07-08T10:00:00Z');
const HOUR = 3_600_000;
const KEYS = ['category=technical', 'category=billing', 'severity=high', 'severity=bogus', 'resolution.ref=abcdef123456', 'customer.ack=true'];
const ACTORS = ['seb', 'customer', 'ana'];
const ROLES = ['{:triager {:members ["seb"]} :billing {:members ["billing"]}}', '{:triager {:members ["ana"]}}'];
/** One selection is checked after each step, with and without the index. */
const SELECTIONS = [
  ['ls', '--all', '--where', 'stage=:aged'],
  ['ls', '--where', 'stage=fresh'],
  ['ls', '--all', '--where', 'stage=:done'],
  ['ls', '--all', '--where', 'stage=:triaged not disputed'],
  ['ls', '--all', '--where', 'fact:category=:billing'],
  ['ls', '--all', '--where', 'fact:severity'],
  ['ls', '--all', '--where', 'disputed'],
  ['ls', '--all', '--where', 'not conflicted'],
  ['ls', '--all', '--where', 'actor=ana'],
  ['ls', '--all', '--where', 'unsigned'],
  ['ls', '--all', '--where', 'fact:customer.ack=true and not unsigned'],
  ['search', 't1'],
  ['search', 'technical'],
].map((args) => [...args, '--json']);

type Op =
  | { kind: 'new'; timed: boolean }
  | { kind: 'set'; t: number; key: number; actor: number }
  | { kind: 'dispute'; t: number; key: number }
  | { kind: 'retract'; t: number; key: number }
  | { kind: 'attest'; t: number }
  | { kind: 'sign'; t: number }
  | { kind: 'time'; hours: number }
  | { kind: 'roles'; which: number }
  | { kind: 'delete-index' }
  | { kind: 'truncate-index'; keep: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('new' as const), timed: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('set' as const), t: fc.nat(), key: fc.nat(KEYS.length - 1), actor: fc.nat(ACTORS.length - 1) }) },
  fc.record({ kind: fc.constant('dispute' as const), t: fc.nat(), key: fc.nat(KEYS.length - 1) }),
  fc.record({ kind: fc.constant('retract' as const), t: fc.nat(), key: fc.nat(KEYS.length - 1) }),
  fc.record({ kind: fc.constant('attest' as const), t: fc.nat() }),
  fc.record({ kind: fc.constant('sign' as const), t: fc.nat() }),
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('time' as const), hours: fc.integer({ min: -3, max: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('roles' as const), which: fc.nat(ROLES.length - 1) }) },
  fc.record({ kind: fc.constant('delete-index' as const) }),
  fc.record({ kind: fc.constant('truncate-index' as const), keep: fc.nat(400) }),
);

const dirs: string[] = [];
afterAll(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});
let key = '';
beforeAll(() => {
  const d = tempDir();
  dirs.push(d);
  key = join(d, 'k');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'seb', '-f', key]);
});

describe('ls through the derived index', () => {
  it('answers as ls without it, for random stores and histories', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(opArb, fc.nat(SELECTIONS.length - 1)), { minLength: 1, maxLength: 10 }), async (randomSteps) => {
        const random = randomSteps.map(([op]) => op);
        // every store starts with a ticket of each process, one attested (time guards have work),
        // the other triaged by seb (the register has work)
        const start: Op[] = [
          { kind: 'new', timed: true },
          { kind: 'new', timed: false },
          { kind: 'attest', t: 0 },
          { kind: 'set', t: 1, key: 0, actor: 0 },
          { kind: 'set', t: 1, key: 2, actor: 0 },
        ];
        const ops = [...start, ...random];
        const d = await supportStore();
        dirs.push(d);
        writeFileSync(join(d, 'processes', 'timed.edn'), TIMED);
        let now = BASE;
        const env = (): Record<string, string> => ({ TIK_NOW: new Date(now).toISOString() });
        const tickets: string[] = [];
        const pick = (i: number): string | undefined => (tickets.length === 0 ? undefined : tickets[i % tickets.length]);
        for (const [step, op] of ops.entries()) {
          const t = 't' in op ? pick(op.t) : undefined;
          const key = 'key' in op ? KEYS[op.key]!.split('=')[0]! : '';
          switch (op.kind) {
            case 'new': {
              const r = await tik(d, ['new', op.timed ? 'timed' : 'support-request', '--title', `t${tickets.length}`], env());
              expect(r.code, r.stderr).toBe(0);
              tickets.push(r.stdout.trim());
              break;
            }
            case 'set':
              if (t) await tik(d, ['--actor', ACTORS[op.actor]!, 'set', t, KEYS[op.key]!], env());
              break;
            case 'dispute':
              if (t) await tik(d, ['--actor', 'customer', 'dispute', t, key], env());
              break;
            case 'retract':
              if (t) await tik(d, ['retract', t, key], env());
              break;
            case 'attest':
              if (t) await tik(d, ['attest', t, ':ci'], env());
              break;
            case 'sign':
              if (t) await tik(d, ['sign', t, '--key', key], env());
              break;
            case 'time':
              now += op.hours * HOUR + 1;
              break;
            case 'roles':
              writeFileSync(join(d, 'roles.edn'), ROLES[op.which]!);
              break;
            case 'delete-index':
              rmSync(join(d, '.tik-index'), { recursive: true, force: true });
              break;
            case 'truncate-index': {
              const f = join(d, '.tik-index', 'ls.json');
              if (existsSync(f)) truncateSync(f, Math.min(op.keep, readFileSync(f).length));
              break;
            }
          }
          const without = await tik(d, ['ls', '--all', '--json'], { ...env(), TIK_INDEX: 'off' });
          const first = await tik(d, ['ls', '--all', '--json'], env());
          const second = await tik(d, ['ls', '--all', '--json'], env());
          // a ticket that cannot be read makes ls exit 1, nothing else may fail
          expect(without.stdout.startsWith('['), without.stderr).toBe(true);
          expect(first).toEqual(without);
          expect(second).toEqual(without);
          const selection = SELECTIONS[step < start.length ? step % SELECTIONS.length : randomSteps[step - start.length]![1]]!;
          const selectedWithout = await tik(d, selection, { ...env(), TIK_INDEX: 'off' });
          expect(selectedWithout.stdout.startsWith('['), selectedWithout.stderr).toBe(true);
          expect(await tik(d, selection, env())).toEqual(selectedWithout);
          expect(await tik(d, selection, env())).toEqual(selectedWithout);
        }
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});
