// The derivation window (issue 18): a derivation is the same at every instant of its window, so a
// derived index may keep it until the window ends (tik-model.md §6.2, time guards §5.1).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Instant } from '../../../src/tik/edn/value.js';
import { derivationWindow, effectiveReached, type ProcessDef, type TikEvent } from '../../../src/tik/kernel/index.js';
import { build, historyArb } from './arbitrary.js';
import { HOUR, T0, defFromText, loadDef, registerRoles } from './builders.js';

const SUPPORT = loadDef('processes/support-request.edn');
const ROLES = registerRoles(SUPPORT);

// Time guards of both kinds, nested under :not and :or, beside plain fact guards.
const TIMED = defFromText(`{:process/id :support-request :process/version 1
 :process/stages [{:stage/id :fresh :guards [[:attested-within :ci "PT5H"]]}
                  {:stage/id :aged :guards [[:elapsed-since :ticket/create "PT7H"] [:fact [:category]]]}
                  {:stage/id :young :guards [[:not [:elapsed-since :ticket/create "PT30H"]]]}
                  {:stage/id :either :after [:aged] :stage/sticky? true
                   :guards [[:or [:attested-within :sbom "PT2H"] [:fact [:severity]]]]}]}`);

const reachedAt = (def: ProcessDef, events: readonly TikEvent[], ms: number): string => [...effectiveReached(def, events, new Instant(ms), ROLES)].sort().join(' ');

/** Instants inside `[from, until)`: its ends (the end less 1 ms) and a few points between. */
function insideWindow(w: { from: number; until: number }, now: number, picks: readonly number[]): number[] {
  const lo = Number.isFinite(w.from) ? w.from : now - 100 * HOUR;
  const hi = Number.isFinite(w.until) ? w.until - 1 : now + 100 * HOUR;
  return [lo, hi, now, ...picks.map((p) => lo + Math.floor(p * (hi - lo)))];
}

describe('derivationWindow', () => {
  for (const [name, def] of [
    ['support-request', SUPPORT],
    ['time guards of both kinds', TIMED],
  ] as const) {
    it(`the derivation is constant inside its window (${name})`, () => {
      fc.assert(
        fc.property(historyArb(), fc.integer({ min: -10, max: 120 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }), (ops, h, picks) => {
          const events = build(ops);
          const now = T0 + h * HOUR + (h % 3) * 17;
          const w = derivationWindow(def, events, now);
          expect(w.from).toBeLessThanOrEqual(now);
          expect(w.until).toBeGreaterThan(now);
          const at = reachedAt(def, events, now);
          for (const t of insideWindow(w, now, picks)) expect(reachedAt(def, events, t)).toBe(at);
        }),
        { numRuns: 150 },
      );
    });
  }

  it('ends exactly where an elapsed-since guard starts to hold', () => {
    const events = build([]);
    const w = derivationWindow(TIMED, events, T0 + HOUR);
    // nothing bounds it below; :aged's clock starts at T0+7h (:young's ends at T0+30h)
    expect(w).toEqual({ from: -Infinity, until: T0 + 7 * HOUR });
    expect(reachedAt(TIMED, events, T0 + 30 * HOUR - 1)).toContain(':young');
    expect(derivationWindow(TIMED, events, T0 + 31 * HOUR)).toEqual({ from: T0 + 30 * HOUR, until: Infinity });
  });

  it('ends 1 ms after an attestation leaves its freshness window', () => {
    const events = build([{ kind: 8, path: 0, value: 0, actor: 0, dt: 2 * HOUR, parents: [], chain: true }]);
    // every freshness duration counts for every attestation (a safe superset): PT2H ends it first
    expect(derivationWindow(TIMED, events, T0 + 3 * HOUR)).toEqual({ from: -Infinity, until: T0 + 4 * HOUR + 1 });
    expect(derivationWindow(TIMED, events, T0 + 7 * HOUR)).toEqual({ from: T0 + 7 * HOUR, until: T0 + 7 * HOUR + 1 });
    expect(reachedAt(TIMED, events, T0 + 7 * HOUR)).toContain(':fresh');
    expect(reachedAt(TIMED, events, T0 + 7 * HOUR + 1)).not.toContain(':fresh');
  });

  it('is unbounded for a definition without time guards, even before its events', () => {
    const plain = defFromText('{:process/id :p :process/version 1 :process/stages [{:stage/id :a :guards [[:fact [:category]]]}]}');
    expect(derivationWindow(plain, build([]), T0 + HOUR)).toEqual({ from: -Infinity, until: Infinity });
    expect(derivationWindow(plain, build([]), T0 - HOUR)).toEqual({ from: -Infinity, until: Infinity });
  });
});
