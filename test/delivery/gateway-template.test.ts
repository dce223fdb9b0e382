import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors/config-error.ts";
import { compileBodyTemplate, compileUrlTemplate } from "../../src/delivery/gateway-template.ts";

const HOSTILE = 'Code "1" }, "admin": true, {"x": "\\u0000\n&to=+1999&text={to}';

describe("SMS gateway templates", () => {
  it("fills a JSON template inside its strings, so no value can change the body's shape", () => {
    const body = compileBodyTemplate(
      "json",
      '{"recipient": {"msisdn": "{to}"}, "message": "SMS: {text}", "flash": false, "tags": ["otp", "{to}"]}',
      "k",
    );
    const sent = JSON.parse(body({ to: "+447700900123", text: HOSTILE }));
    expect(sent).toEqual({
      recipient: { msisdn: "+447700900123" },
      message: `SMS: ${HOSTILE}`,
      flash: false,
      tags: ["otp", "+447700900123"],
    });
    expect(Object.keys(sent)).toEqual(["recipient", "message", "flash", "tags"]);
  });

  it("fills each placeholder once: a value that contains {to} is not filled again", () => {
    const body = compileBodyTemplate("json", '{"to": "{to}", "text": "{text}"}', "k");
    expect(JSON.parse(body({ to: "+15551234567", text: "look: {to} {text}" }))).toEqual({ to: "+15551234567", text: "look: {to} {text}" });
  });

  it("re-encodes a form template field by field", () => {
    const body = compileBodyTemplate("form", "api_key=k%26y&to={to}&msg={text}", "k");
    const fields = new URLSearchParams(body({ to: "+15551234567", text: HOSTILE }));
    expect([...fields.keys()]).toEqual(["api_key", "to", "msg"]);
    expect(fields.get("api_key")).toBe("k&y");
    expect(fields.get("msg")).toBe(HOSTILE);
  });

  it("percent-encodes values placed in a URL", () => {
    const url = compileUrlTemplate("https://sms.example/send?to={to}&text={text}");
    const parsed = new URL(url({ to: "+15551234567", text: "a&b=c #1/2" }));
    expect(parsed.searchParams.get("to")).toBe("+15551234567");
    expect(parsed.searchParams.get("text")).toBe("a&b=c #1/2");
    expect([...parsed.searchParams.keys()]).toEqual(["to", "text"]);
  });

  it("keeps any text intact in a JSON body (property)", () => {
    const body = compileBodyTemplate("json", '{"to": "{to}", "text": "{text}"}', "k");
    fc.assert(
      fc.property(fc.string(), fc.string(), (to, text) => {
        const sent = JSON.parse(body({ to, text })) as Record<string, string>;
        return sent.to === to && sent.text === text && Object.keys(sent).length === 2;
      }),
    );
  });

  it("refuses a JSON template that is not JSON, naming the key", () => {
    expect(() => compileBodyTemplate("json", '{"to": {to}}', "methods.sms.delivery.body")).toThrow(ConfigError);
    expect(() => compileBodyTemplate("json", '{"to": {to}}', "methods.sms.delivery.body")).toThrow(
      /methods\.sms\.delivery\.body: is not JSON/,
    );
  });
});
