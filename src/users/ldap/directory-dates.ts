import type { LdapConfig } from "./ldap-settings.ts";

/** How a directory writes a date (directory.yaml's `from`). */
export type DirectoryDateFormat = NonNullable<LdapConfig["claims"]["birthdate"]>["from"];

/** The spec's date claims and how each is written (SPEC userinfo: birthdate yyyy/MM/dd, hiredate yyyy-MM-dd). */
export const DATE_CLAIM_SEPARATORS = { birthdate: "/", hiredate: "-" } as const;

/** Claims that are a moment, released as seconds since 1970 (OIDC Core §5.1 updated_at), not as a calendar date. */
export const TIME_CLAIMS: ReadonlySet<string> = new Set(["updated_at"]);

// Windows FILETIME counts 100 ns intervals from 1601-01-01; 11644473600 s lie between then and 1970.
const FILETIME_UNIX_OFFSET_MS = 11_644_473_600_000n;

/** The calendar date a directory value names, as [year, month, day], or undefined when it is not one in `format`. */
export function parseDirectoryDate(value: string, format: DirectoryDateFormat): [number, number, number] | undefined {
  const text = value.trim();
  switch (format) {
    case "generalized_time":
      // RFC 4517 §3.3.13: yyyyMMddHH[mm[ss]][.fraction](Z|±hhmm); the date is the first eight digits.
      return /^\d{10}(\d{2}(\d{2})?)?([.,]\d+)?(Z|[+-]\d{4})$/.test(text)
        ? checked(text.slice(0, 4), text.slice(4, 6), text.slice(6, 8))
        : undefined;
    case "iso_date": {
      const match = /^(\d{4})-(\d{2})-(\d{2})([T ].*)?$/.exec(text);
      return match ? checked(match[1]!, match[2]!, match[3]!) : undefined;
    }
    case "compact_date":
      return /^\d{8}$/.test(text) ? checked(text.slice(0, 4), text.slice(4, 6), text.slice(6, 8)) : undefined;
    case "ad_filetime": {
      // 0 and 2^63-1 mean "never" in AD (accountExpires): no date.
      if (!/^\d{1,19}$/.test(text) || text === "0" || text === "9223372036854775807") return undefined;
      const ms = BigInt(text) / 10_000n - FILETIME_UNIX_OFFSET_MS;
      const date = new Date(Number(ms));
      return Number.isNaN(date.getTime()) ? undefined : [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    }
  }
}

/**
 * The moment a directory value names, in whole seconds since 1970 UTC, or undefined when it is not one in
 * `format`: generalized time with its hour, minutes, seconds and offset (modifyTimestamp, whenChanged); an
 * ISO date or date-time (a date-time without an offset is read as UTC); a compact date (midnight UTC); a FILETIME.
 */
export function parseDirectoryTime(value: string, format: DirectoryDateFormat): number | undefined {
  const text = value.trim();
  const date = parseDirectoryDate(text, format);
  if (date === undefined) return undefined;
  switch (format) {
    case "generalized_time": {
      const match = /^\d{8}(\d{2})(\d{2})?(\d{2})?(?:[.,]\d+)?(Z|([+-])(\d{2})(\d{2}))$/.exec(text)!;
      const [hour, minute, second] = [match[1], match[2] ?? "0", match[3] ?? "0"].map(Number) as [number, number, number];
      const offsetMinutes = match[4] === "Z" ? 0 : (match[5] === "-" ? -1 : 1) * (Number(match[6]) * 60 + Number(match[7]));
      const [y, m, d] = date;
      return Math.floor(Date.UTC(y, m - 1, d, hour, minute, second) / 1000) - offsetMinutes * 60;
    }
    case "iso_date": {
      const dateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/.test(text);
      const ms = dateTime ? Date.parse(/(Z|[+-]\d{2}:\d{2})$/.test(text) ? text : `${text}Z`) : Date.UTC(date[0], date[1] - 1, date[2]);
      return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
    }
    case "compact_date":
      return Math.floor(Date.UTC(date[0], date[1] - 1, date[2]) / 1000);
    case "ad_filetime":
      return Number(BigInt(text) / 10_000_000n - FILETIME_UNIX_OFFSET_MS / 1000n);
  }
}

/** The date claim `claim` carries for [year, month, day]: zero-padded, in the spec's order and separator. */
export function formatDateClaim(claim: keyof typeof DATE_CLAIM_SEPARATORS, [year, month, day]: [number, number, number]): string {
  const separator = DATE_CLAIM_SEPARATORS[claim];
  return [String(year).padStart(4, "0"), String(month).padStart(2, "0"), String(day).padStart(2, "0")].join(separator);
}

/** The date when it exists in the calendar (no 2023-02-30): a directory's typo must not become a claim. */
function checked(year: string, month: string, day: string): [number, number, number] | undefined {
  const [y, m, d] = [Number(year), Number(month), Number(day)];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d ? [y, m, d] : undefined;
}
