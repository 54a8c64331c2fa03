/**
 * Instants as text, the way Java's `java.time.Instant` prints and parses them (tik-model.md §1.4).
 *
 * Printing is `Instant.toString()` at millisecond precision: `YYYY-MM-DDTHH:MM:SS`, then `.mmm`
 * only when the milliseconds are non-zero (always three digits), then `Z`. Years outside
 * 0000–9999 are printed as Java prints them: `+10000-…` above, `-0001-…` below (a sign, then at
 * least four digits). We reproduce them rather than refuse them.
 *
 * Parsing is `Instant.parse` (`DateTimeFormatter.ISO_INSTANT`, strict resolver, case-insensitive):
 * a four-digit year (or a signed longer one: `+` is required above 9999 and refused otherwise), a
 * valid calendar date, `T`, `HH:MM:SS`, an optional fraction of 0–9 digits after `.`, then `Z`.
 * As in Java, `24:00:00` means the start of the next day and `23:59:60` is read as `23:59:59`.
 * An offset `±HH:MM[:SS]` (within ±18:00) is accepted in place of `Z`, as `Instant.parse` does
 * since JDK 12 (upstream runs on a current JDK); the instant is converted to UTC.
 * The fraction is truncated toward −∞ to milliseconds, which for a non-negative fraction of a
 * second is plain truncation of the digits after the third.
 */

const MS_PER_DAY = 86_400_000;

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm; any integer year). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The proleptic Gregorian date of a day count since 1970-01-01. */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

const pad2 = (n: number): string => (n < 10 ? '0' + n : String(n));
const pad3 = (n: number): string => (n < 10 ? '00' + n : n < 100 ? '0' + n : String(n));

function yearText(year: number): string {
  if (year > 9999) return '+' + year;
  if (year >= 0) return String(year).padStart(4, '0');
  return '-' + String(-year).padStart(4, '0');
}

/** `Instant.toString()` of an epoch-millisecond count (a safe integer). */
export function formatInstant(ms: number): string {
  const days = Math.floor(ms / MS_PER_DAY);
  let rest = ms - days * MS_PER_DAY;
  const { year, month, day } = civilFromDays(days);
  const hour = Math.floor(rest / 3_600_000);
  rest -= hour * 3_600_000;
  const minute = Math.floor(rest / 60_000);
  rest -= minute * 60_000;
  const second = Math.floor(rest / 1000);
  const milli = rest - second * 1000;
  const base = `${yearText(year)}-${pad2(month)}-${pad2(day)}T${pad2(hour)}:${pad2(minute)}:${pad2(second)}`;
  return milli === 0 ? base + 'Z' : `${base}.${pad3(milli)}Z`;
}

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const INSTANT_PATTERN =
  /^([+-]?)(\d{4,10})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{0,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2})(?::(\d{2}))?)$/;

/**
 * `Instant.parse` truncated to milliseconds. Returns the epoch milliseconds, or a string saying
 * what is wrong with the text.
 */
export function parseInstant(text: string): number | string {
  const fast = parseCommon(text);
  if (fast !== undefined) return fast;
  const m = INSTANT_PATTERN.exec(text);
  if (!m) return `"${text}" is not an ISO-8601 instant like 2026-07-08T12:00:00Z (seconds required; Z or an offset like +01:00)`;
  const [, sign, yearDigits, mo, d, h, mi, s, fraction, offSign, offH, offM, offS] = m as unknown as [
    string, string, string, string, string, string, string, string, string | undefined,
    string | undefined, string | undefined, string | undefined, string | undefined,
  ];
  let offsetSeconds = 0;
  if (offSign !== undefined) {
    const oh = Number(offH);
    const om = Number(offM);
    const os = offS === undefined ? 0 : Number(offS);
    if (oh > 18 || om > 59 || os > 59 || oh * 3600 + om * 60 + os > 18 * 3600) {
      return `offset ${offSign}${offH}:${offM}${offS === undefined ? '' : ':' + offS} is outside ±18:00 in "${text}"`;
    }
    offsetSeconds = (offSign === '-' ? -1 : 1) * (oh * 3600 + om * 60 + os);
  }
  // DateTimeFormatter's EXCEEDS_PAD year: a '+' exactly when there are more than four digits.
  if (sign === '+' && yearDigits.length <= 4) return `year "+${yearDigits}" must not have a '+' sign (Java refuses it)`;
  if (sign === '' && yearDigits.length > 4) return `year "${yearDigits}" has more than four digits and needs a '+' sign`;
  if (sign === '-' && /^0+$/.test(yearDigits)) return `year "-${yearDigits}" is minus zero`;
  const year = (sign === '-' ? -1 : 1) * Number(yearDigits);
  const month = Number(mo);
  const day = Number(d);
  let hour = Number(h);
  const minute = Number(mi);
  let second = Number(s);
  const frac = fraction ?? '';
  const nanosZero = /^0*$/.test(frac);
  let extraDays = 0;
  if (hour === 24 && minute === 0 && second === 0 && nanosZero) {
    hour = 0;
    extraDays = 1;
  } else if (hour === 23 && minute === 59 && second === 60) {
    second = 59; // Java records a parsed leap second and yields :59
  }
  if (month < 1 || month > 12) return `month ${mo} is out of range in "${text}"`;
  const dim = month === 2 && isLeap(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 31);
  if (day < 1 || day > dim) return `day ${d} does not exist in month ${mo} of year ${year} in "${text}"`;
  if (hour > 23) return `hour ${h} is out of range in "${text}"`;
  if (minute > 59) return `minute ${mi} is out of range in "${text}"`;
  if (second > 59) return `second ${s} is out of range in "${text}"`;
  const milli = frac.length === 0 ? 0 : Number(frac.slice(0, 3).padEnd(3, '0'));
  const days = daysFromCivil(year, month, day) + extraDays;
  const ms = days * MS_PER_DAY + hour * 3_600_000 + minute * 60_000 + (second - offsetSeconds) * 1000 + milli;
  if (!Number.isSafeInteger(ms)) return `instant "${text}" is outside the supported range (±285,000 years)`;
  return ms;
}

/** Two ASCII digits at `i` as a number, or NaN. */
function two(t: string, i: number): number {
  const a = t.charCodeAt(i) - 48;
  const b = t.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : NaN;
}

/**
 * The form every canonical file holds, `YYYY-MM-DDTHH:MM:SSZ` or `…SS.mmmZ`, without a regex.
 * Returns `undefined` for anything else (including invalid field values), leaving the general
 * parser to accept or explain it.
 */
function parseCommon(t: string): number | undefined {
  const n = t.length;
  if ((n !== 20 && n !== 24) || t.charCodeAt(n - 1) !== 90) return undefined; // Z
  if (t.charCodeAt(4) !== 45 || t.charCodeAt(7) !== 45 || t.charCodeAt(10) !== 84 || t.charCodeAt(13) !== 58 || t.charCodeAt(16) !== 58) {
    return undefined;
  }
  const year = two(t, 0) * 100 + two(t, 2);
  const month = two(t, 5);
  const day = two(t, 8);
  const hour = two(t, 11);
  const minute = two(t, 14);
  const second = two(t, 17);
  let milli = 0;
  if (n === 24) {
    if (t.charCodeAt(19) !== 46) return undefined;
    const c = t.charCodeAt(22) - 48;
    milli = two(t, 20) * 10 + (c >= 0 && c <= 9 ? c : NaN);
  }
  // NaN fails every comparison, so malformed digits fall through to the general parser.
  if (!(month >= 1 && month <= 12 && day >= 1 && hour <= 23 && minute <= 59 && second <= 59 && milli >= 0 && year >= 0)) return undefined;
  const dim = month === 2 && isLeap(year) ? 29 : (DAYS_IN_MONTH[month - 1] as number);
  if (day > dim) return undefined;
  return daysFromCivil(year, month, day) * MS_PER_DAY + hour * 3_600_000 + minute * 60_000 + second * 1000 + milli;
}
