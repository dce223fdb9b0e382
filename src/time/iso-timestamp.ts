/**
 * `Date.now()` as ISO 8601 (`2026-11-26T13:10:05.123Z`), as `new Date().toISOString()` writes it, with
 * the part up to the second formatted once per second: the audit trail stamps a line on every token
 * response, and toISOString was the larger part of building that line.
 */
let cachedSecond = Number.NaN;
let cachedPrefix = "";

export function isoTimestamp(now: number = Date.now()): string {
  const second = Math.floor(now / 1000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, -4); // up to and with the "."
  }
  const ms = now - second * 1000;
  return `${cachedPrefix}${ms < 10 ? "00" : ms < 100 ? "0" : ""}${ms}Z`;
}
