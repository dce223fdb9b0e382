import { describe, expect, it } from "vitest";
import { parseDirectoryTime } from "../../src/users/ldap/directory-dates.ts";
import { formatBirthdate } from "../../src/scopes/birthdate-format.ts";

/** updated_at from a directory's timestamps (seconds since 1970), and birthdate in each client format. */
describe("parseDirectoryTime", () => {
  it("reads generalized time with its time of day and offset", () => {
    expect(parseDirectoryTime("20260101000000Z", "generalized_time")).toBe(1767225600);
    expect(parseDirectoryTime("202601010130Z", "generalized_time")).toBe(1767225600 + 5400);
    expect(parseDirectoryTime("20260101020000+0200", "generalized_time")).toBe(1767225600);
    expect(parseDirectoryTime("20260101000000.5Z", "generalized_time")).toBe(1767225600);
  });

  it("reads ISO dates and date-times (UTC without an offset), compact dates and FILETIMEs", () => {
    expect(parseDirectoryTime("2026-01-01", "iso_date")).toBe(1767225600);
    expect(parseDirectoryTime("2026-01-01T01:00:00+01:00", "iso_date")).toBe(1767225600);
    expect(parseDirectoryTime("2026-01-01T00:00:10", "iso_date")).toBe(1767225610);
    expect(parseDirectoryTime("20260101", "compact_date")).toBe(1767225600);
    expect(parseDirectoryTime(String((1767225600n + 11644473600n) * 10_000_000n), "ad_filetime")).toBe(1767225600);
  });

  it("reads nothing from a value that is not a moment in the format", () => {
    expect(parseDirectoryTime("yesterday", "generalized_time")).toBeUndefined();
    expect(parseDirectoryTime("20260230000000Z", "generalized_time")).toBeUndefined();
    expect(parseDirectoryTime("0", "ad_filetime")).toBeUndefined();
  });
});

describe("formatBirthdate", () => {
  it("writes a full date in the client's format from either format, and leaves anything else as it is", () => {
    expect(formatBirthdate("1990/04/12", "oidc")).toBe("1990-04-12");
    expect(formatBirthdate("1990-04-12", "spec")).toBe("1990/04/12");
    expect(formatBirthdate("1990/04/12", "spec")).toBe("1990/04/12");
    expect(formatBirthdate("1990", "oidc")).toBe("1990");
  });
});
