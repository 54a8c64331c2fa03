import { createHash } from 'node:crypto';
import { TikError } from '../errors.js';

/**
 * `tik recur` (tik-model.md §9): the deterministic ticket id and the period start, so that every
 * replica mints byte-identical events for the same process and period (law T5).
 */

/** Java's `UUID.nameUUIDFromBytes(UTF-8("tik/recur\0<proc>\0<label>"))`: MD5 with no namespace, version 3. */
export function recurTicketId(processName: string, label: string): string {
  const b = createHash('md5').update(`tik/recur\u0000${processName}\u0000${label}`, 'utf8').digest();
  b[6] = (b[6]! & 0x0f) | 0x30;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const DAY = 86_400_000;

function outOfRange(label: string, what: string): TikError {
  return new TikError('cli/bad-period', `period "${label}": ${what} is out of range`, {
    where: '--period',
    hint: 'periods are yyyy, yyyy-Qn, yyyy-MM, yyyy-MM-dd or yyyy-Www (ISO week)',
  });
}

/** ISO weeks in a year: 53 when Jan 1 is a Thursday, or a Wednesday in a leap year. */
function isoWeeksIn(year: number): number {
  const jan1 = new Date(Date.UTC(year, 0, 1)).getUTCDay(); // 0 = Sunday
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return jan1 === 4 || (leap && jan1 === 3) ? 53 : 52;
}

/**
 * The UTC start of a period label, in epoch ms; `undefined` for a free-form label (which then
 * needs `--at`). Throws `cli/bad-period` for a recognised shape with an out-of-range component.
 */
export function periodStart(label: string): number | undefined {
  let m: RegExpExecArray | null;
  if ((m = /^(\d{4})$/.exec(label))) return Date.UTC(Number(m[1]), 0, 1);
  if ((m = /^(\d{4})-Q(\d)$/.exec(label))) {
    const q = Number(m[2]);
    if (q < 1 || q > 4) throw outOfRange(label, `quarter ${q}`);
    return Date.UTC(Number(m[1]), 3 * (q - 1), 1);
  }
  if ((m = /^(\d{4})-W(\d{2})$/.exec(label))) {
    const year = Number(m[1]);
    const week = Number(m[2]);
    if (week < 1 || week > isoWeeksIn(year)) throw outOfRange(label, `week ${week}`);
    const jan4 = Date.UTC(year, 0, 4);
    const weekday = (new Date(jan4).getUTCDay() + 6) % 7; // Monday = 0
    return jan4 - weekday * DAY + (week - 1) * 7 * DAY;
  }
  if ((m = /^(\d{4})-(\d{2})$/.exec(label))) {
    const month = Number(m[2]);
    if (month < 1 || month > 12) throw outOfRange(label, `month ${month}`);
    return Date.UTC(Number(m[1]), month - 1, 1);
  }
  if ((m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(label))) {
    const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (month < 1 || month > 12) throw outOfRange(label, `month ${month}`);
    const ms = Date.UTC(year, month - 1, day);
    if (day < 1 || new Date(ms).getUTCDate() !== day) throw outOfRange(label, `day ${day}`);
    return ms;
  }
  return undefined;
}
