/**
 * How comparison values are read: ISO 8601 instants (to epoch seconds, the same numbers the SQL
 * function switchyard_instant computes from stored strings) and numeric strings.
 */

/**
 * The ISO 8601 forms filter search reads as instants: a date (midnight UTC), or a date and time with
 * optional seconds, fraction and offset (no offset means UTC). The same grammar as switchyard_instant
 * (migration 4): `T`, `t` or a space between date and time; offsets Z, ±HH, ±HHMM or ±HH:MM.
 */
const ISO_INSTANT =
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?:[Tt ]([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d(?:\.\d{1,9})?))?([Zz]|([+-])([01]\d|2[0-3])(?::?([0-5]\d))?)?)?$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Epoch seconds of an ISO 8601 instant as exact decimal text (fraction kept), or undefined when the text is not one. */
export function isoInstantSeconds(text: string): string | undefined {
  const match = ISO_INSTANT.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, , sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (day > daysInMonth(year, month)) return undefined;
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year); // Date.UTC would read years 0-99 as 1900-1999
  let whole = date.getTime() / 1000 + Number(h ?? 0) * 3600 + Number(mi ?? 0) * 60;
  const [seconds = '0', fraction = ''] = (s ?? '0').split('.');
  whole += Number(seconds);
  if (sign !== undefined) whole -= (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om ?? 0) * 60);
  const nanos = BigInt(whole) * 1_000_000_000n + BigInt(fraction.padEnd(9, '0'));
  return decimalText(nanos, 9);
}

/** A scaled integer as decimal text without trailing fraction zeros: decimalText(-1500n, 3) = '-1.5'. */
function decimalText(scaled: bigint, scale: number): string {
  const negative = scaled < 0n;
  const digits = (negative ? -scaled : scaled).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** The YYYY-MM-DD day (UTC) of epoch seconds, or undefined outside years 0000-9999. */
export function utcDay(seconds: number): string | undefined {
  if (!Number.isFinite(seconds)) return undefined;
  const date = new Date(Math.floor(seconds) * 1000);
  const year = date.getUTCFullYear();
  if (Number.isNaN(year) || year < 0 || year > 9999) return undefined;
  return `${String(year).padStart(4, '0')}-${String(date.getUTCMonth() + 1).padStart(2, '0')}-${String(date.getUTCDate()).padStart(2, '0')}`;
}

/** The UTC second of epoch seconds as "YYYY-MM-DDTHH:MM:SS" (fraction dropped), or undefined outside years 0000-9999. */
export function utcSecond(seconds: number): string | undefined {
  const day = utcDay(seconds);
  if (day === undefined) return undefined;
  return `${day}${new Date(Math.floor(seconds) * 1000).toISOString().slice(10, 19)}`;
}

/** A number written as text (what switchyard_key reads as a number): optional minus, digits, optional fraction. */
export function isNumericText(text: string): boolean {
  return /^-?\d{1,30}(\.\d{1,30})?$/.test(text);
}
