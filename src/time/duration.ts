/**
 * Durations in config are a whole number and a unit (`300s`, `5m`, `8h`, `30d`), the same grammar the
 * schemas enforce with `^[0-9]+(s|m|h|d)$`. Everything else in the provider works in seconds.
 */
export const DURATION_UNITS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

export type DurationUnit = keyof typeof DURATION_UNITS;

const DURATION = /^([0-9]+)(s|m|h|d)$/;

/** `parseDuration("5m")` → 300. Throws a RangeError for anything else, including values past 2^53. */
export function parseDuration(text: string): number {
  const match = DURATION.exec(text);
  if (!match) throw new RangeError(`invalid duration ${JSON.stringify(text)}: expected a whole number followed by s, m, h or d`);
  const seconds = Number(match[1]) * DURATION_UNITS[match[2] as DurationUnit];
  if (!Number.isSafeInteger(seconds)) throw new RangeError(`duration ${JSON.stringify(text)} is too large`);
  return seconds;
}
