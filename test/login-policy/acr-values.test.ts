import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_ACR_VALUES, parseAcrValues, type AcrRequirements } from "../../src/login-policy/acr-values.ts";

const NONE: AcrRequirements = { twoFactor: false, methods: [], mustBfido: false, channelInfo: false, gps: false, faceid: false, voluntary: [] };
const read = (value: string | undefined) => {
  const result = parseAcrValues(value);
  if (!result.ok) throw new Error(`refused: ${result.description}`);
  return result.requirements;
};
const refusal = (value: string) => {
  const result = parseAcrValues(value);
  return result.ok ? undefined : result.description;
};

describe("parseAcrValues", () => {
  it("requires nothing when acr_values is absent or blank", () => {
    expect(read(undefined)).toEqual(NONE);
    expect(read("   ")).toEqual(NONE);
  });

  it("reads every value of the spec's table", () => {
    expect(read("2fa")).toEqual({ ...NONE, twoFactor: true });
    expect(read("must_bfido")).toEqual({ ...NONE, mustBfido: true });
    expect(read("req_chnl")).toEqual({ ...NONE, channel: {} });
    expect(read("req_chnl:ch-42")).toEqual({ ...NONE, channel: { id: "ch-42" } });
    expect(read("app_gps")).toEqual({ ...NONE, gps: true });
    expect(read("app_faceid")).toEqual({ ...NONE, faceid: true });
  });

  it("reads 2fa:<methods> with comma and slash separators, keeping the order", () => {
    expect(read("2fa:qrcode,totp").methods).toEqual(["qrcode", "totp"]);
    expect(read("2fa:fido/password/sms").methods).toEqual(["fido", "password", "sms"]);
    expect(read("2fa:totp,qrcode/email")).toEqual({ ...NONE, twoFactor: true, methods: ["totp", "qrcode", "email"] });
  });

  it("combines values freely", () => {
    expect(read("2fa req_chnl:c1 chnl_info app_gps app_faceid")).toEqual({ ...NONE, twoFactor: true, channel: { id: "c1" }, channelInfo: true, gps: true, faceid: true });
  });

  it("takes chnl_info alone as asking for a channel too (its name and icon need one)", () => {
    expect(read("chnl_info")).toEqual({ ...NONE, channelInfo: true, channel: {} });
  });

  it("keeps values that are not the spec's as voluntary (OIDC Core 3.1.2.1)", () => {
    expect(read("urn:example:silver 2fa")).toEqual({ ...NONE, twoFactor: true, voluntary: ["urn:example:silver"] });
  });

  it("accepts a repeated value, and 2fa beside the same 2fa:<methods>", () => {
    expect(read("app_gps app_gps").gps).toBe(true);
    expect(read("2fa 2fa:totp,fido 2fa:totp,fido").methods).toEqual(["totp", "fido"]);
    expect(read("req_chnl req_chnl:c1").channel).toEqual({ id: "c1" });
  });

  it.each([
    ["must_bfido 2fa", /must_bfido cannot be combined with 2fa/],
    ["2fa:totp must_bfido", /must_bfido cannot be combined with 2fa/],
    ["2fa:", /empty method name/],
    ["2fa:totp,,fido", /empty method name/],
    ["2fa:TOTP", /'TOTP', which is not a method id/],
    ["2fa:totp,totp", /'totp' twice/],
    ["2fa:totp 2fa:fido", /two different 2fa method lists/],
    ["req_chnl:", /malformed channel id/],
    ["req_chnl:a<b", /malformed channel id 'a<b'/],
    ["req_chnl:a req_chnl:b", /two different channels/],
  ])("refuses %j with a clear description", (value, description) => {
    expect(refusal(value)).toMatch(description);
  });

  it(`refuses more than ${MAX_ACR_VALUES} values`, () => {
    expect(refusal(Array.from({ length: MAX_ACR_VALUES + 1 }, (_, i) => `v${i}`).join(" "))).toMatch(/more than 16 values/);
  });

  it("never throws, and every refusal is printable ASCII for error_description", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.array(fc.constantFrom("2fa", "2fa:", "must_bfido", "req_chnl", "req_chnl:", "chnl_info", "app_gps", "app_faceid", ",", "/", ":", " ", "totp", "\u0000", "é", '"')).map((parts) => parts.join(""))), (value) => {
        const result = parseAcrValues(value);
        if (!result.ok) expect(result.description).toMatch(/^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/);
      }),
      { numRuns: 2000 },
    );
  });

  it("reads back the methods of any well-formed 2fa:<methods>, in order", () => {
    const methodId = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
    fc.assert(
      fc.property(fc.uniqueArray(methodId, { minLength: 1, maxLength: 6 }), fc.array(fc.constantFrom(",", "/"), { minLength: 6, maxLength: 6 }), (methods, separators) => {
        const value = `2fa:${methods.map((m, i) => (i === 0 ? m : `${separators[i]}${m}`)).join("")}`;
        expect(read(value).methods).toEqual(methods);
      }),
    );
  });
});
