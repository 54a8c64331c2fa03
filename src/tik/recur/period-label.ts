import { TikError } from '../errors.js';

/** How often a recurring process opens a ticket. */
export type Cadence = 'daily' | 'weekly' | 'monthly' | 'quarterly' | 'yearly';

export const CADENCES: readonly Cadence[] = Object.freeze(['daily', 'weekly', 'monthly', 'quarterly', 'yearly']);

/** Parses a cadence name (`weekly`, or the keyword text `:weekly`); throws `recur/bad-cadence`. */
export function parseCadence(text: string, where: string): Cadence {
  const t = text.startsWith(':') ? text.slice(1) : text;
  if ((CADENCES as readonly string[]).includes(t)) return t as Cadence;
  throw new TikError('recur/bad-cadence', `unknown cadence ${JSON.stringify(text)}`, { where, hint: `one of ${CADENCES.join(', ')}` });
}

const DAY = 86_400_000;
const pad = (n: number, w: number): string => String(n).padStart(w, '0');

/**
 * The label of the period of `cadence` that contains the instant `ms`, from its UTC date, in the
 * shapes `tik recur --period` reads (tik-model.md §9; upstream's `tik backend`): daily
 * `yyyy-MM-dd`, weekly the ISO week `yyyy-Www` (week-based year: the year of the week's
 * Thursday), monthly `yyyy-MM`, quarterly `yyyy-Qn`, yearly `yyyy`. Pure: the clock is an argument.
 */
export function periodLabel(cadence: Cadence, ms: number): string {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  if (!Number.isFinite(ms) || year < 0 || year > 9999) {
    throw new TikError('recur/bad-instant', `no period label for the instant ${ms} (years 0000–9999 only)`, { where: 'clock', hint: 'check the clock (TIK_NOW)' });
  }
  const month = d.getUTCMonth() + 1;
  switch (cadence) {
    case 'daily':
      return `${pad(year, 4)}-${pad(month, 2)}-${pad(d.getUTCDate(), 2)}`;
    case 'monthly':
      return `${pad(year, 4)}-${pad(month, 2)}`;
    case 'quarterly':
      return `${pad(year, 4)}-Q${Math.floor((month - 1) / 3) + 1}`;
    case 'yearly':
      return pad(year, 4);
    case 'weekly': {
      const midnight = Date.UTC(year, d.getUTCMonth(), d.getUTCDate());
      const weekday = (d.getUTCDay() + 6) % 7; // Monday = 0
      const thursday = new Date(midnight + (3 - weekday) * DAY);
      const weekYear = thursday.getUTCFullYear();
      const week = 1 + Math.floor((thursday.getTime() - Date.UTC(weekYear, 0, 1)) / (7 * DAY));
      return `${pad(weekYear, 4)}-W${pad(week, 2)}`;
    }
  }
}
