import type { LdapConfig } from "./ldap-settings.ts";

/** How a directory writes a date (directory.yaml's `from`). */
export type DirectoryDateFormat = NonNullable<LdapConfig["claims"]["birthdate"]>["from"];

/** The spec's date claims and how each is written (SPEC userinfo: birthdate yyyy/MM/dd, hiredate yyyy-MM-dd). */
export const DATE_CLAIM_SEPARATORS = { birthdate: "/", hiredate: "-" } as const;

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
