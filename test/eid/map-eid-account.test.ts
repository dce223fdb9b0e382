import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EidError } from "../../src/eid/eid-error.ts";
import { mapEidAccount } from "../../src/eid/map-eid-account.ts";

const upstream = { sub_prefix: "eid:", claims: { name: "given_name", email: "email", birthdate: "birthdate" } };

describe("mapEidAccount", () => {
  it("makes the local sub from the prefix and the upstream sub, and maps the declared claims", () => {
    const account = mapEidAccount(
      "national",
      upstream,
      { sub: "CZ-1", iss: "https://eid.example", given_name: "Mei" },
      { sub: "CZ-1", email: "mei@example.org", phone_number: "+1555" },
    );
    expect(account).toEqual({ sub: "eid:CZ-1", claims: { name: "Mei", email: "mei@example.org" } });
  });

  it("prefers the userinfo answer over the ID token for a claim both carry", () => {
    expect(
      mapEidAccount("national", upstream, { sub: "CZ-1", email: "old@example.org" }, { sub: "CZ-1", email: "new@example.org" }).claims,
    ).toEqual({ email: "new@example.org" });
  });

  it("drops upstream claims the mapping does not name, and leaves out mapped claims the upstream did not send or sent as null", () => {
    expect(mapEidAccount("national", upstream, { sub: "CZ-1", nickname: "m" }, { birthdate: null }).claims).toEqual({});
  });

  it.each([
    ["missing", {}],
    ["empty", { sub: "" }],
    ["not a string", { sub: 42 }],
    ["longer than 255 characters", { sub: "x".repeat(256) }],
  ])("refuses a login whose sub is %s, as invalid_response", (_what, idToken) => {
    const attempt = () => mapEidAccount("national", upstream, idToken);
    expect(attempt).toThrow(EidError);
    expect(attempt).toThrow(expect.objectContaining({ failure: "invalid_response", error: "server_error", upstream: "national" }));
  });

  it("always gives prefix + upstream sub, and only claims the mapping declares", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 255 }),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ minLength: 1, maxLength: 8 })),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue()),
        (sub, claims, upstreamClaims) => {
          const account = mapEidAccount("u", { sub_prefix: "p:", claims }, { ...upstreamClaims, sub });
          expect(account.sub).toBe(`p:${sub}`);
          for (const name of Object.keys(account.claims)) expect(Object.keys(claims)).toContain(name);
        },
      ),
    );
  });
});
