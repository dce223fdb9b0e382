import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/config-error.ts";
import { checkOutboundUrl } from "../../src/delivery/outbound-url.ts";

describe("URLs the provider sends personal data to", () => {
  it("must be https, except on loopback", () => {
    expect(checkOutboundUrl("https://sms.example.com/v1", "k").href).toBe("https://sms.example.com/v1");
    for (const loopback of ["http://127.0.0.1:8080/x", "http://localhost/x", "http://[::1]:9/x", "http://127.1.2.3/x"])
      expect(() => checkOutboundUrl(loopback, "k")).not.toThrow();
    for (const bad of [
      "http://sms.example.com/v1",
      "http://10.0.0.5/send",
      "ftp://sms.example.com",
      "file:///etc/passwd",
      "javascript:alert(1)",
    ]) {
      expect(() => checkOutboundUrl(bad, "methods.sms.delivery.url"), bad).toThrow(ConfigError);
    }
    expect(() => checkOutboundUrl("http://sms.example.com", "methods.sms.delivery.url")).toThrow(
      /methods\.sms\.delivery\.url: must be an https URL/,
    );
  });

  it("refuses relative URLs and credentials in the URL", () => {
    expect(() => checkOutboundUrl("/send", "k")).toThrow(/not an absolute URL/);
    expect(() => checkOutboundUrl("https://user:pw@sms.example.com/", "k")).toThrow(/must not carry credentials/);
  });
});
