import { describe, expect, it } from "vitest";
import { OAuthError } from "../../src/errors/oauth-error.ts";
import { parseClaimsParameter } from "../../src/oauth/claims-request.ts";
import { releasableClaims } from "../../src/oauth/requested-claim-names.ts";
import { ScopeRegistry } from "../../src/scopes/scope-registry.ts";

/** The claims parameter as OIDC Core §5.5 shapes it, and which of its claims a client may receive. */
const refusal = (text: string) => {
  try {
    parseClaimsParameter(text);
  } catch (error) {
    expect(error).toBeInstanceOf(OAuthError);
    return (error as OAuthError).error;
  }
  throw new Error("accepted");
};

describe("parseClaimsParameter", () => {
  it("reads the userinfo and id_token members, null and individual requests alike, and ignores other members", () => {
    const parsed = parseClaimsParameter(
      JSON.stringify({
        userinfo: { email: null, given_name: { essential: true, extra: 1 } },
        id_token: { birthdate: { value: "x" }, acr: { essential: true, values: ["2fa", "1fa"] } },
        unknown_member: { name: null },
      }),
    );
    expect(parsed).toEqual({
      userinfo: ["email", "given_name"],
      idToken: ["birthdate", "acr"],
      acr: { essential: true, values: ["2fa", "1fa"] },
    });
  });

  it("reads acr value as a one-value list, and null acr as a wish for any", () => {
    expect(parseClaimsParameter('{"id_token":{"acr":{"value":"2fa"}}}').acr).toEqual({ essential: false, values: ["2fa"] });
    expect(parseClaimsParameter('{"id_token":{"acr":null}}').acr).toEqual({ essential: false, values: [] });
  });

  it("keeps the stronger of two acr requests: essential wins, and two essential ones keep the values both accept", () => {
    const both = (a: unknown, b: unknown) => parseClaimsParameter(JSON.stringify({ userinfo: { acr: a }, id_token: { acr: b } })).acr;
    expect(both({ values: ["1fa"] }, { essential: true, value: "2fa" })).toEqual({ essential: true, values: ["2fa"] });
    expect(both({ essential: true, values: ["1fa", "2fa"] }, { essential: true, values: ["2fa"] })).toEqual({
      essential: true,
      values: ["2fa"],
    });
    expect(
      refusal(
        JSON.stringify({ userinfo: { acr: { essential: true, value: "1fa" } }, id_token: { acr: { essential: true, value: "2fa" } } }),
      ),
    ).toBe("invalid_request");
  });

  it.each([
    ["malformed JSON", "{"],
    ["a string", '"claims"'],
    ["an array", "[]"],
    ["a member that is an array", '{"userinfo":["email"]}'],
    ["a claim request that is a string", '{"id_token":{"email":"yes"}}'],
    ["essential that is a string", '{"id_token":{"email":{"essential":"true"}}}'],
    ["values that are a string", '{"id_token":{"email":{"values":"a"}}}'],
    ["acr values that are numbers", '{"id_token":{"acr":{"values":[2]}}}'],
    ["an empty claim name", '{"id_token":{"":null}}'],
    ["too many claims", JSON.stringify({ userinfo: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`c${i}`, null])) })],
  ])("refuses %s with invalid_request", (_, text) => {
    expect(refusal(text)).toBe("invalid_request");
  });
});

describe("releasableClaims", () => {
  const scopes = new ScopeRegistry({
    identity_scopes: [
      { name: "openid", claims: ["sub"] },
      { name: "profile", claims: ["name", "given_name", "birthdate"] },
      { name: "email", claims: ["email", "email_verified"] },
    ],
    api_resources: [],
  });

  it("releases what the client's allowed identity scopes release, asked for by the scope or not, and nothing else", () => {
    const requested = { userinfo: ["email", "name", "hiredate"], idToken: ["given_name", "acr", "sub", "email"] };
    expect(releasableClaims(requested, { allowedScopes: new Set(["openid", "profile"]) }, scopes)).toEqual({
      userinfo: ["name"],
      idToken: ["given_name"],
    });
  });

  it("adds nothing when no requested claim may be released", () => {
    expect(releasableClaims({ userinfo: ["email"], idToken: ["acr"] }, { allowedScopes: new Set(["openid"]) }, scopes)).toBeUndefined();
  });
});
