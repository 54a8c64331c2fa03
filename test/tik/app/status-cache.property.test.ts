// Law (issue 18, ADR 0013): for any ticket and any history — writes, time passing or going back,
// reads at other instants, register changes, cache files deleted, damaged or swapped between
// runs — `tik status --json` through the status cache answers exactly as without it.
import { cpSync, existsSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, supportStore, tik } from '../cli/harness.js';

// Both time guards: windows end 3 h after creation and 2 h after each attestation.
const CLOCKED = `{:process/id :clocked :process/version 1 :process/guard-vocab 2
 :process/facts {[:category] [:enum :billing :technical]}
 :process/stages [{:stage/id :open :guards []}
                  {:stage/id :stale :after [:open] :guards [[:elapsed-since :ticket/create "PT3H"] [:not [:fact [:category]]]]}
                  {:stage/id :checked :after [:open] :guards [[:attested-within :ci "PT2H"]]}
                  {:stage/id :closed :after [:open] :stage/sticky? true :guards [[:fact [:category]] [:stage-reached :checked]]}]}`;

const START = Date.parse('2026-07-08T10:00:00Z');
const HOUR = 3_600_000;
const FACTS = ['category=technical', 'category=billing', 'severity=high', 'severity=bogus', 'customer.ack=true'];
const WHO = ['seb', 'customer', 'ana'];
const REGISTERS = ['{:triager {:members ["seb"]} :billing {:members ["billing"]}}', '{:triager {:members ["ana"]}}'];

type Step =
  | { kind: 'set'; t: number; fact: number; who: number }
  | { kind: 'retract'; t: number; fact: number }
  | { kind: 'attest'; t: number }
  | { kind: 'clock'; hours: number }
  | { kind: 'register'; which: number }
  | { kind: 'drop-cache' }
  | { kind: 'cut-cache'; keep: number }
  | { kind: 'swap-cache' }
  | { kind: 'read-at'; hours: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('set' as const), t: fc.nat(), fact: fc.nat(FACTS.length - 1), who: fc.nat(WHO.length - 1) }) },
  fc.record({ kind: fc.constant('retract' as const), t: fc.nat(), fact: fc.nat(FACTS.length - 1) }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('attest' as const), t: fc.nat() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('clock' as const), hours: fc.integer({ min: -3, max: 4 }) }) },
  fc.record({ kind: fc.constant('register' as const), which: fc.nat(REGISTERS.length - 1) }),
  fc.record({ kind: fc.constant('drop-cache' as const) }),
  fc.record({ kind: fc.constant('cut-cache' as const), keep: fc.nat(300) }),
  fc.record({ kind: fc.constant('swap-cache' as const) }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('read-at' as const), hours: fc.integer({ min: -2, max: 6 }) }) },
);

/** Every status cache file of a store. */
function cacheFiles(d: string): string[] {
  const root = join(d, '.tik-index', 'status');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((n) => n.endsWith('.json'))
    .map((n) => join(root, n))
    .sort();
}

const dirs: string[] = [];
afterAll(() => {
  while (dirs.length > 0) cleanup(dirs.pop()!);
});

describe('status through the status cache', () => {
  it('answers as status without it, for random tickets and histories', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 8 }), async (steps) => {
        const d = await supportStore();
        dirs.push(d);
        writeFileSync(join(d, 'processes', 'clocked.edn'), CLOCKED);
        let now = START;
        const env = (ms = now): Record<string, string> => ({ TIK_NOW: new Date(ms).toISOString() });
        const tickets: string[] = [];
        for (const process of ['clocked', 'support-request', 'clocked']) {
          const r = await tik(d, ['new', process, '--title', `t${tickets.length}`], env());
          expect(r.code, r.stderr).toBe(0);
          tickets.push(r.stdout.trim());
        }
        await tik(d, ['attest', tickets[0]!, ':ci'], env());
        await tik(d, ['set', tickets[1]!, 'category=technical'], env());
        const pick = (i: number): string => tickets[i % tickets.length]!;
        for (const step of steps) {
          let at = now;
          switch (step.kind) {
            case 'set':
              await tik(d, ['--actor', WHO[step.who]!, 'set', pick(step.t), FACTS[step.fact]!], env());
              break;
            case 'retract':
              await tik(d, ['retract', pick(step.t), FACTS[step.fact]!.split('=')[0]!], env());
              break;
            case 'attest':
              await tik(d, ['attest', pick(step.t), ':ci'], env());
              break;
            case 'clock':
              now += step.hours * HOUR + 1;
              at = now;
              break;
            case 'register':
              writeFileSync(join(d, 'roles.edn'), REGISTERS[step.which]!);
              break;
            case 'drop-cache':
              rmSync(join(d, '.tik-index'), { recursive: true, force: true });
              break;
            case 'cut-cache':
              for (const f of cacheFiles(d)) truncateSync(f, step.keep);
              break;
            case 'swap-cache': {
              // authentic entries under each other's names
              const files = cacheFiles(d);
              if (files.length > 1) cpSync(files[0]!, files[1]!);
              break;
            }
            case 'read-at':
              at = now + step.hours * HOUR;
              break;
          }
          for (const t of tickets) {
            const without = await tik(d, ['status', t, '--json'], { ...env(at), TIK_INDEX: 'off' });
            const first = await tik(d, ['status', t, '--json'], env(at));
            const second = await tik(d, ['status', t, '--json'], env(at));
            expect(without.code, without.stderr).toBe(0);
            expect(first).toEqual(without);
            expect(second).toEqual(without);
          }
        }
      }),
      { numRuns: 10 },
    );
  }, 180_000);
});
