/**
 * Instants written the way vendors' time params take them: a change filter's mark, the ends of a sync
 * window. One function, so that the generator can check a manifest's format against the param's schema
 * with the text the sync will send.
 */
export type InstantFormat = 'iso8601' | 'iso8601_offset' | 'iso8601_millis' | 'date' | 'unix_seconds' | 'unix_millis' | 'unix_micros' | 'minutes_ago';

/** `instant` written as `format`; minutes_ago counts whole minutes from it to `now`, rounded up (at least 1). */
export function formatInstant(instant: Date, format: InstantFormat, now: Date): string | number {
  const ms = instant.getTime();
  switch (format) {
    case 'iso8601':
      return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    case 'iso8601_offset':
      return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', '+00:00');
    case 'iso8601_millis':
      return instant.toISOString();
    case 'date':
      return instant.toISOString().slice(0, 10);
    case 'unix_seconds':
      return Math.floor(ms / 1000);
    case 'unix_millis':
      return Math.floor(ms);
    case 'unix_micros':
      return Math.floor(ms) * 1000;
    case 'minutes_ago':
      return Math.max(1, Math.ceil((now.getTime() - ms) / 60_000));
  }
}
