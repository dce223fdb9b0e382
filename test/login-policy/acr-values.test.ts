import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_ACR_VALUES, parseAcrValues, type AcrRequirements } from "../../src/login-policy/acr-values.ts";
import { DEMO_ACR_VALUES } from "../support/demo-acr-values.ts";

const NONE: AcrRequirements = { matched: [], methods: [], claims: [], voluntary: [], dropped: [] };
const read = (value: string | undefined) => {
  const result = parseAcrValues(value, DEMO_ACR_VALUES);
  if (!result.ok) throw new Error(`refused: ${result.description}`);
  return result.requirements;
};
const refusal = (value: string) => {
  const result = parseAcrValues(value, DEMO_ACR_VALUES);
  return result.ok ? undefined : result.description;
};
const match = (sent: string, declared = sent) => ({ sent, declared });
const TWO_FACTOR = { loginType: { type: "2fa", by: "2fa" } };

describe("parseAcrValues", () => {
  it("requires nothing when acr_values is absent or blank", () => {
    expect(read(undefined)).toEqual(NONE);
    expect(read("   ")).toEqual(NONE);
  });

  it("reads every value of the spec's table as login.yaml declares it", () => {
    expect(read("2fa")).toEqual({ ...NONE, ...TWO_FACTOR, matched: [match("2fa")] });
    expect(read("must_bfido")).toEqual({
      ...NONE,
      matched: [match("must_bfido")],
      requiredMethods: { methods: ["bfido"], by: ["must_bfido"] },
      alone: "must_bfido",
    });
    expect(read("req_chnl")).toEqual({ ...NONE, matched: [match("req_chnl")], channel: {}, claims: ["chnl"] });
    expect(read("req_chnl:ch-42")).toEqual({
      ...NONE,
      matched: [match("req_chnl:ch-42", "req_chnl")],
      channel: { id: "ch-42" },
      claims: ["chnl"],
    });
    expect(read("app_gps")).toEqual({
      ...NONE,
      matched: [match("app_gps")],
      requiredMethods: { methods: ["qrcode"], by: ["app_gps"] },
      claims: ["gps"],
    });
    expect(read("app_faceid")).toEqual({
      ...NONE,
      matched: [match("app_faceid")],
      requiredMethods: { methods: ["qrcode"], by: ["app_faceid"] },
      claims: ["faceid"],
    });
  });

  it("matches declared values without regard to case, as login_type is matched: 2FA is never a weaker login than 2fa", () => {
    expect(read("2FA")).toEqual({ ...NONE, ...TWO_FACTOR, matched: [match("2FA", "2fa")] });
    expect(read("2FA:totp").methods).toEqual(["totp"]);
    expect(read("Req_Chnl:c1").channel).toEqual({ id: "c1" });
    expect(read("MUST_BFIDO").requiredMethods?.methods).toEqual(["bfido"]);
  });

  it("reads 2fa:<methods> with comma and slash separators, keeping the order", () => {
    expect(read("2fa:qrcode,totp").methods).toEqual(["qrcode", "totp"]);
    expect(read("2fa:fido/password/sms").methods).toEqual(["fido", "password", "sms"]);
    expect(read("2fa:totp,qrcode/email")).toEqual({
      ...NONE,
      ...TWO_FACTOR,
      matched: [match("2fa:totp,qrcode/email", "2fa")],
      methods: ["totp", "qrcode", "email"],
    });
  });

  it("combines values freely", () => {
    const all = read("2fa req_chnl:c1 chnl_info app_gps app_faceid");
    expect(all).toMatchObject({
      ...TWO_FACTOR,
      channel: { id: "c1" },
      requiredMethods: { methods: ["qrcode"], by: ["app_gps", "app_faceid"] },
    });
    expect(all.claims).toEqual(["chnl", "chnl_name", "chnl_icon", "gps", "faceid"]);
    expect(all.matched.map((m) => m.declared)).toEqual(["2fa", "req_chnl", "chnl_info", "app_gps", "app_faceid"]);
  });

  it("takes chnl_info alone as asking for a channel too (its name and icon need one)", () => {
    expect(read("chnl_info")).toEqual({ ...NONE, matched: [match("chnl_info")], channel: {}, claims: ["chnl", "chnl_name", "chnl_icon"] });
  });

  it("keeps values that are not declared as voluntary (OIDC Core 3.1.2.1), and an argument to a value that takes none too", () => {
    expect(read("urn:example:silver 2fa")).toEqual({ ...NONE, ...TWO_FACTOR, matched: [match("2fa")], voluntary: ["urn:example:silver"] });
    expect(read("must_bfido:x")).toEqual({ ...NONE, voluntary: ["must_bfido:x"] });
  });

  it("reads only what is declared: a value removed from login.yaml is voluntary, a new one is read", () => {
    const declared = new Map(DEMO_ACR_VALUES);
    declared.delete("app_gps");
    declared.set("gold", { name: "Gold", loginType: "2fa", alone: false, channel: false, claims: [] });
    const result = parseAcrValues("app_gps GOLD", declared);
    expect(result).toEqual({
      ok: true,
      requirements: { ...NONE, matched: [match("GOLD", "Gold")], loginType: { type: "2fa", by: "Gold" }, voluntary: ["app_gps"] },
    });
  });

  it("accepts a repeated value, and 2fa beside the same 2fa:<methods>", () => {
    expect(read("app_gps app_gps").claims).toEqual(["gps"]);
    expect(read("2fa 2fa:totp,fido 2fa:totp,fido").methods).toEqual(["totp", "fido"]);
    expect(read("req_chnl req_chnl:c1").channel).toEqual({ id: "c1" });
  });

  it.each([
    ["2fa:", /empty method name/],
    ["2fa:totp,,fido", /empty method name/],
    ["2fa:TOTP", /'TOTP', which is not a method id/],
    ["2fa:totp,totp", /'totp' twice/],
    ["req_chnl:", /malformed channel id/],
    ["req_chnl:a<b", /malformed channel id 'a<b'/],
    ["app_gps req_chnl:a<b", /malformed channel id 'a<b'/],
  ])("refuses the malformed %j with a clear description", (value, description) => {
    expect(refusal(value)).toMatch(description);
  });

  it.each([
    ["must_bfido 2fa", "must_bfido", "2fa", /decides the verification itself/],
    ["2fa:totp must_bfido", "2fa:totp", "must_bfido", /not beside 2fa/],
    ["must_bfido app_gps", "must_bfido", "app_gps", /no one login can pass together with must_bfido/],
    ["app_gps must_bfido", "app_gps", "must_bfido", /no one login can pass together with app_gps/],
    ["2fa:totp 2fa:fido", "2fa:totp", "2fa:fido", /another method list/],
    ["req_chnl:a req_chnl:b", "req_chnl:a", "req_chnl:b", /another channel/],
  ])("takes %j in the order sent: %s is met, %s set aside, never an error", (value, kept, setAside, reason) => {
    const requirements = read(value);
    expect(requirements.matched.map((m) => m.sent)).toEqual([kept]);
    expect(requirements.dropped).toEqual([{ sent: setAside, reason: expect.stringMatching(reason) }]);
  });

  it("sets aside a value whose methods the login type in force offers none of, whichever of the two comes first", () => {
    const methodsOf = (type: string) => ({ mfatotp: ["totp"], "2fa": ["qrcode", "totp"], mfascan: ["qrcode"] })[type];
    const named = parseAcrValues("app_gps chnl_info", DEMO_ACR_VALUES, { loginType: "mfatotp", methodsOf });
    expect(named.ok && named.requirements.dropped).toEqual([{ sent: "app_gps", reason: expect.stringMatching(/offers none of qrcode/) }]);
    expect(named.ok && named.requirements.claims).not.toContain("gps");
    expect(named.ok && named.requirements.requiredMethods).toBeUndefined();
    // A type that offers the method keeps the value.
    const served = parseAcrValues("app_gps", DEMO_ACR_VALUES, { loginType: "mfascan", methodsOf });
    expect(served.ok && served.requirements.dropped).toEqual([]);
    expect(served.ok && served.requirements.claims).toEqual(["gps"]);
  });

  it("reads every value of acr_values_supported sent at once, as a certification tester sends them, without an error", () => {
    const all = [...DEMO_ACR_VALUES.values()].map((d) => d.name).join(" ");
    const requirements = read(all);
    expect(requirements.matched[0]).toEqual(match("2fa"));
    expect(requirements.loginType).toEqual({ type: "2fa", by: "2fa" });
    expect(requirements.dropped.map((d) => d.sent)).toEqual(["must_bfido"]);
  });

  it("sets aside what the request's login_type or fa already decides", () => {
    const withType = parseAcrValues("must_bfido 2fa app_gps", DEMO_ACR_VALUES, { loginType: "mfatotp" });
    expect(withType.ok && withType.requirements.dropped.map((d) => d.sent)).toEqual(["must_bfido", "2fa"]);
    expect(withType.ok && withType.requirements.requiredMethods?.methods).toEqual(["qrcode"]);
    const withFa = parseAcrValues("2fa:totp,fido", DEMO_ACR_VALUES, { fa: true });
    expect(withFa.ok && withFa.requirements.dropped).toEqual([{ sent: "2fa:totp,fido", reason: expect.stringMatching(/fa already/) }]);
    // The request's own login type, named again by a value, is no contradiction.
    const same = parseAcrValues("2fa", DEMO_ACR_VALUES, { loginType: "2fa" });
    expect(same.ok && same.requirements.loginType).toEqual({ type: "2fa", by: "2fa" });
  });

  it(`refuses more than ${MAX_ACR_VALUES} values`, () => {
    expect(refusal(Array.from({ length: MAX_ACR_VALUES + 1 }, (_, i) => `v${i}`).join(" "))).toMatch(/more than 16 values/);
  });

  it("never throws, and every refusal is printable ASCII for error_description", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc
            .array(
              fc.constantFrom(
                "2fa",
                "2fa:",
                "must_bfido",
                "req_chnl",
                "req_chnl:",
                "chnl_info",
                "app_gps",
                "app_faceid",
                ",",
                "/",
                ":",
                " ",
                "totp",
                "\u0000",
                "é",
                '"',
              ),
            )
            .map((parts) => parts.join("")),
        ),
        (value) => {
          const result = parseAcrValues(value, DEMO_ACR_VALUES);
          if (!result.ok) expect(result.description).toMatch(/^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("reads back the methods of any well-formed 2fa:<methods>, in order", () => {
    const methodId = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
    fc.assert(
      fc.property(
        fc.uniqueArray(methodId, { minLength: 1, maxLength: 6 }),
        fc.array(fc.constantFrom(",", "/"), { minLength: 6, maxLength: 6 }),
        (methods, separators) => {
          const value = `2fa:${methods.map((m, i) => (i === 0 ? m : `${separators[i]}${m}`)).join("")}`;
          expect(read(value).methods).toEqual(methods);
        },
      ),
    );
  });
});
