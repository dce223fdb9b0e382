import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAcrValues } from "../../src/login-policy/acr-values.ts";
import type { LoginPolicy } from "../../src/login-policy/login-policy.ts";
import { planLogin } from "../../src/login-policy/plan-login.ts";
import { isVendorSignatureValid, vendorSignature } from "../../src/login-policy/vendor-signature.ts";

const CLIENT = "vendor-app";
const KEY = "vendor-app-signing-key-0123456789";
const REGISTERED = new Set(["https://vendor.example/callback", "https://vendor.example/cb", "http://localhost:3004/callback"]);
const POLICY: LoginPolicy = {
  methodClasses: new Map([["totp", "untrusted"]]),
  defaultMethods: ["totp"],
  loginTypes: new Map([
    [
      "myvendor",
      {
        name: "MyVendor",
        flow: "second_factor",
        methods: ["totp"],
        sso: false,
        loginHint: "vendor",
        repeatLoginTypeAtToken: true,
        signature: true,
        fa: false,
        enrollOnFirstUse: true,
        scopes: new Set(["openid", "profile"]),
      },
    ],
  ]),
  acrValues: new Map(),
};
const NO_ACR = (() => {
  const parsed = parseAcrValues(undefined, POLICY.acrValues);
  if (!parsed.ok) throw new Error("unreachable");
  return parsed.requirements;
})();

/** Everything the provider checks of a MyVendor request, in its order: registered URI, the plan's login_hint rule, the signature. */
function accepted(redirectUri: string, loginHint: string, signature: string): boolean {
  if (!REGISTERED.has(redirectUri)) return false;
  const plan = planLogin(POLICY, {
    endpoint: "authorize",
    clientId: CLIENT,
    loginType: "MyVendor",
    loginHint,
    signature,
    scopes: ["openid", "profile"],
    acr: NO_ACR,
  });
  return plan.ok && isVendorSignatureValid(signature, redirectUri, loginHint, KEY);
}

const account = fc.string({ minLength: 1, maxLength: 24 });
const registered = fc.constantFrom(...REGISTERED);

describe("MyVendor signature", () => {
  it("is the lowercase hex SHA-1 of redirect_uri + login_hint + signing key", () => {
    const expected = createHash("sha1")
      .update("https://vendor.example/callbackvendor-app:u1" + KEY)
      .digest("hex");
    expect(vendorSignature("https://vendor.example/callback", "vendor-app:u1", KEY)).toBe(expected);
    expect(isVendorSignatureValid(expected.toUpperCase(), "https://vendor.example/callback", "vendor-app:u1", KEY)).toBe(true);
  });

  it("refuses what is not 40 hex digits", () => {
    const good = vendorSignature("https://vendor.example/callback", "vendor-app:u1", KEY);
    for (const bad of ["", good.slice(1), `${good}0`, `${good.slice(0, 39)}g`, ` ${good.slice(1)}`])
      expect(isVendorSignatureValid(bad, "https://vendor.example/callback", "vendor-app:u1", KEY)).toBe(false);
  });

  it("property: a request whose signed string differs from the signed one is refused", () => {
    fc.assert(
      fc.property(
        registered,
        account,
        fc.string({ maxLength: 60 }),
        fc.string({ maxLength: 60 }),
        fc.string({ maxLength: 40 }),
        (uri, acct, otherUri, otherHint, otherKey) => {
          const hint = `${CLIENT}:${acct}`;
          const signature = vendorSignature(uri, hint, KEY);
          fc.pre(otherUri + otherHint + otherKey !== uri + hint + KEY);
          expect(isVendorSignatureValid(signature, otherUri, otherHint, otherKey)).toBe(false);
          // And the provider's own key never signs it: the caller's key cannot stand in.
          if (otherUri + otherHint !== uri + hint) expect(accepted(otherUri, otherHint, signature)).toBe(false);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("property: characters shifted between redirect_uri and login_hint keep the signature but are refused by the registered-URI and <client_id>: rules", () => {
    fc.assert(
      fc.property(
        registered,
        account,
        fc.integer({ min: -40, max: 40 }).filter((shift) => shift !== 0),
        (uri, acct, shift) => {
          const hint = `${CLIENT}:${acct}`;
          const signature = vendorSignature(uri, hint, KEY);
          expect(accepted(uri, hint, signature)).toBe(true);
          const joined = uri + hint;
          const cut = uri.length + shift;
          fc.pre(cut > 0 && cut < joined.length);
          const [shiftedUri, shiftedHint] = [joined.slice(0, cut), joined.slice(cut)];
          expect(isVendorSignatureValid(signature, shiftedUri, shiftedHint, KEY)).toBe(true);
          expect(accepted(shiftedUri, shiftedHint, signature)).toBe(false);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("property: where no registered URI is a prefix of another (the config rule for signing clients), a shift always lands on an unregistered redirect_uri", () => {
    // Distinct path segments without "/" and a common "/cb" end: no URI is a prefix of another (checked, too).
    const prefixFree = fc
      .uniqueArray(fc.stringMatching(/^[a-z0-9._~-]{1,12}$/), { minLength: 1, maxLength: 5 })
      .map((segments) => segments.map((segment) => `https://vendor.example/${segment}/cb`));
    fc.assert(
      fc.property(
        prefixFree,
        fc.nat(),
        fc.string({ minLength: 1, maxLength: 24 }),
        fc.integer({ min: -60, max: 60 }).filter((shift) => shift !== 0),
        (uris, pick, acct, shift) => {
          fc.pre(uris.every((u) => uris.every((v) => u === v || !v.startsWith(u))));
          const uri = uris[pick % uris.length]!;
          const joined = uri + `${CLIENT}:${acct}`;
          const cut = uri.length + shift;
          fc.pre(cut > 0 && cut < joined.length);
          expect(uris.includes(joined.slice(0, cut))).toBe(false);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
