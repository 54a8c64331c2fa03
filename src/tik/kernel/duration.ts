/**
 * ISO-8601 durations exactly as `java.time.Duration.parse` reads them (tik-model.md §5.1).
 *
 * Grammar (case-insensitive): `[-+]P[nD][T[nH][nM][n[.f]S]]`, where each `n` may carry its own
 * sign, a day is exactly 24 hours, only seconds take a fraction (0–9 digits, after `.` or `,`),
 * and at least one component is required. `P1W`, `P1M`, `P1Y`, `P`, `PT`, `P1DT` are invalid, as is
 * anything that overflows Java's `long` seconds. Failures throw `TikError('duration/invalid')`.
 *
 * The value is kept exact (seconds and nanoseconds, normalised like Java: `0 ≤ nanos < 10^9`), so
 * no rounding happens at parse time. Conversions to milliseconds say which way they round:
 * `toMillis` floors (Java's `Duration.toMillis`, so `PT1.000000001S` → 1000 and `PT-0.0005S` → -1);
 * `toMillisCeil` rounds up. Because instants are whole milliseconds, `now ≥ t + d` holds exactly
 * when `now ≥ t + toMillisCeil(d)`, and `t ≥ now − d` exactly when `t ≥ now − toMillis(d)`: use
 * those for `:elapsed-since` and `:attested-within` and the comparison equals Java's on the exact
 * duration. The two differ only for durations with a sub-millisecond remainder.
 */
import { TikError } from '../errors.js';

/** An exact duration: `seconds + nanos / 10^9`, with `0 ≤ nanos < 10^9` (as `java.time.Duration`). */
export interface Duration {
  readonly seconds: bigint;
  readonly nanos: number;
}

const PATTERN = /^([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?$/i;
const MIN_LONG = -(2n ** 63n);
const MAX_LONG = 2n ** 63n - 1n;
const NANOS = 1_000_000_000n;

function invalid(text: string, why: string): TikError {
  return new TikError('duration/invalid', `${JSON.stringify(text)} is not a java.time.Duration: ${why}`, {
    where: text,
    hint: 'write e.g. "PT48H", "P2D", "P2DT3H4M" or "PT0.5S"; weeks, months and years (P1W, P1M, P1Y) are not durations',
  });
}

/** Java `Math.*Exact` on long: throw on overflow. */
function exact(text: string, n: bigint, what: string): bigint {
  if (n < MIN_LONG || n > MAX_LONG) throw invalid(text, `${what} overflows`);
  return n;
}

const floorDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
};

/** `Duration.ofSeconds(seconds, nanoAdjustment)`: normalise so that 0 ≤ nanos < 10^9. */
function ofSeconds(text: string, seconds: bigint, nanoAdjustment: bigint): Duration {
  const q = floorDiv(nanoAdjustment, NANOS);
  const secs = exact(text, seconds + q, 'the duration');
  return Object.freeze({ seconds: secs, nanos: Number(nanoAdjustment - q * NANOS) });
}

/** Parse a duration as `java.time.Duration.parse` does; throws `TikError('duration/invalid')`. */
export function parseDuration(text: string): Duration {
  if (typeof text !== 'string') throw invalid(String(text), 'not a string');
  const m = PATTERN.exec(text);
  if (!m) {
    const why = /^[-+]?P.*[WwYy]/.test(text) || /^[-+]?P[^T]*\d+M/i.test(text)
      ? 'weeks, months and years are not supported (a day is 24 hours; use days or hours)'
      : 'expected [-+]P[nD][T[nH][nM][n[.f]S]]';
    throw invalid(text, why);
  }
  const [, sign, d, t, h, mi, s, f] = m;
  if (t !== undefined && t.length === 1) throw invalid(text, "'T' must be followed by hours, minutes or seconds");
  if (d === undefined && h === undefined && mi === undefined && s === undefined) throw invalid(text, 'no days, hours, minutes or seconds');
  const num = (v: string | undefined, multiplier: bigint, what: string): bigint => {
    if (v === undefined) return 0n;
    const n = exact(text, BigInt(v), what); // Long.parseLong
    return exact(text, n * multiplier, what); // Math.multiplyExact
  };
  const days = num(d, 86_400n, 'days');
  const hours = num(h, 3_600n, 'hours');
  const minutes = num(mi, 60n, 'minutes');
  const seconds = num(s, 1n, 'seconds');
  const negativeSecs = s !== undefined && s.startsWith('-');
  const fraction = f === undefined || f.length === 0 ? 0n : BigInt(f.padEnd(9, '0')) * (negativeSecs ? -1n : 1n);
  const total = exact(text, days + exact(text, hours + exact(text, minutes + seconds, 'the duration'), 'the duration'), 'the duration');
  const d0 = ofSeconds(text, total, fraction);
  if (sign !== '-') return d0;
  // Duration.negated(): exact negation of seconds+nanos, which must still fit.
  return ofSeconds(text, exact(text, -d0.seconds, 'the negated duration'), BigInt(-d0.nanos));
}

/** Whether Java's `Duration.parse` accepts the text. */
export function isDuration(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  try {
    parseDuration(text);
    return true;
  } catch {
    return false;
  }
}

/** Total nanoseconds of a duration. */
export function toNanos(d: Duration): bigint {
  return d.seconds * NANOS + BigInt(d.nanos);
}

/** Milliseconds rounded toward −∞ (Java's `Duration.toMillis`). */
export function toMillis(d: Duration): bigint {
  return d.seconds * 1000n + BigInt(Math.floor(d.nanos / 1_000_000));
}

/** Milliseconds rounded toward +∞. */
export function toMillisCeil(d: Duration): bigint {
  return d.seconds * 1000n + BigInt(Math.ceil(d.nanos / 1_000_000));
}

/** Shorthand: `toMillis(parseDuration(text))`. */
export function parseDurationMillis(text: string): bigint {
  return toMillis(parseDuration(text));
}
