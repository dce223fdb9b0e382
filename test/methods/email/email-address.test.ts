import { describe, expect, it } from "vitest";
import { normaliseEmailAddress } from "../../../flows/methods/email/email-address.ts";

describe("e-mail addresses", () => {
  it("are trimmed, with the domain lower-cased and the local part kept", () => {
    expect(normaliseEmailAddress("  Alice.Chen@Example.ORG ")).toBe("Alice.Chen@example.org");
    expect(normaliseEmailAddress("a+tag@mail.example.co.uk")).toBe("a+tag@mail.example.co.uk");
  });

  it("that could reach a header as something else, or are not addresses, are refused", () => {
    for (const bad of [
      "alice",
      "alice@localhost",
      "a b@example.com",
      "alice@example.com\r\nBcc: eve@evil.example",
      '"a"@example.com',
      "<a@example.com>",
      "a@b@example.com",
      "a,b@example.com",
      `${"a".repeat(65)}@example.com`,
      `a@${"b".repeat(250)}.com`,
      "",
    ]) {
      expect(normaliseEmailAddress(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });
});
