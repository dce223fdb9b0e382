import { describe, expect, it } from "vitest";
import { normalisePhoneNumber } from "../../../flows/methods/sms/phone-number.ts";

describe("phone numbers", () => {
  it("are tidied into E.164", () => {
    expect(normalisePhoneNumber("+44 7700 900123")).toBe("+447700900123");
    expect(normalisePhoneNumber(" +1 (555) 010-9999 ")).toBe("+15550109999");
    expect(normalisePhoneNumber("0086 139.1234.5678")).toBe("+8613912345678");
  });

  it("without a country code, too short, too long or with letters are refused", () => {
    for (const bad of [
      "07700 900123",
      "+12345",
      "+1234567890123456",
      "+44 7700 9OO123",
      "+0 7700 900123",
      "",
      "+44\n7700900123\nBcc: x",
      "+".padEnd(60, "1"),
    ]) {
      expect(normalisePhoneNumber(bad), bad).toBeUndefined();
    }
  });
});
