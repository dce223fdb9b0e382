import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appEntryUrl, authorizeParamsOf, parseSsoEntry, ssoAuthorizeUrl } from "../../src/trusted-app/acmeauth-sso.ts";
import { loginUri, parseAcmeAuthUri } from "../../src/trusted-app/acmeauth-uri.ts";

const PARAMS = {
  client_id: "demo-web",
  redirect_uri: "http://localhost:3001/callback",
  response_type: "code",
  scope: "openid profile",
  state: "s t&x",
  acr_values: "app_gps 2fa",
};

describe("the acmeauth://sso/oidc app entry", () => {
  it("carries the authorize parameters, and turns into the provider's authorize request with the device token", () => {
    const link = appEntryUrl(PARAMS);
    expect(link).toBe(
      "acmeauth://sso/oidc?client_id=demo-web&redirect_uri=http%3A%2F%2Flocalhost%3A3001%2Fcallback&response_type=code&scope=openid+profile&state=s+t%26x&acr_values=app_gps+2fa",
    );
    const entry = parseSsoEntry(link)!;
    expect(entry.clientId).toBe("demo-web");
    expect(entry.wants).toEqual({ gps: true, faceid: false });
    const url = new URL(ssoAuthorizeUrl("https://id.example.com/", entry, "TOKEN"));
    expect(url.origin + url.pathname).toBe("https://id.example.com/connect/authorize");
    expect(Object.fromEntries(url.searchParams)).toEqual({ ...PARAMS, acmeauth_token: "TOKEN" });
  });

  it("never carries a token into the link, and replaces one a link brought with the device's own", () => {
    expect(appEntryUrl({ ...PARAMS, acmeauth_token: "stolen" })).not.toContain("acmeauth_token");
    const entry = parseSsoEntry(`acmeauth://sso/oidc?client_id=demo-web&acmeauth_token=forged`)!;
    expect(new URL(ssoAuthorizeUrl("https://id.example.com", entry, "MINE")).searchParams.getAll("acmeauth_token")).toEqual(["MINE"]);
  });

  it("refuses what is not an entry with exactly one client_id", () => {
    expect(parseSsoEntry("acmeauth://sso/oidc?scope=openid")).toBeUndefined();
    expect(parseSsoEntry("acmeauth://sso/oidc?client_id=a&client_id=b")).toBeUndefined();
    expect(parseSsoEntry("acmeauth://sso/saml?client_id=a")).toBeUndefined();
    expect(parseSsoEntry("https://sso/oidc?client_id=a")).toBeUndefined();
    // A scanned authorize link is an entry only on the app's own provider.
    expect(parseSsoEntry("https://idp.example/connect/authorize?client_id=a&state=s", "https://idp.example")?.clientId).toBe("a");
    expect(parseSsoEntry("https://evil.example/connect/authorize?client_id=a", "https://idp.example")).toBeUndefined();
    expect(parseSsoEntry("https://idp.example.evil/connect/authorize?client_id=a", "https://idp.example")).toBeUndefined();
    expect(parseSsoEntry("https://idp.example/connect/authorize?client_id=a")).toBeUndefined();
    expect(parseSsoEntry("not a uri")).toBeUndefined();
  });

  it("round-trips any parameters (property)", () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string({ minLength: 1 }).filter((k) => k !== "acmeauth_token" && k !== "client_id"),
          fc.string(),
        ),
        fc.string({ minLength: 1 }),
        (extra, clientId) => {
          const entry = parseSsoEntry(appEntryUrl({ ...extra, client_id: clientId }))!;
          expect(entry.clientId).toBe(clientId);
          expect(Object.fromEntries(entry.params)).toEqual({ ...extra, client_id: clientId });
        },
      ),
    );
  });

  it("rebuilds a validated request's parameters for the login page's link", () => {
    const params = authorizeParamsOf({
      clientId: "demo-web",
      redirectUri: "http://localhost:3001/callback",
      responseMode: "query",
      scopes: ["openid", "profile"],
      state: "s",
      nonce: "n",
      codeChallenge: "c".repeat(43),
      codeChallengeMethod: "S256",
      prompt: ["login"],
      acrValues: ["app_faceid"],
      framed: false,
    });
    expect(params).toEqual({
      client_id: "demo-web",
      redirect_uri: "http://localhost:3001/callback",
      response_type: "code",
      scope: "openid profile",
      state: "s",
      nonce: "n",
      code_challenge: "c".repeat(43),
      code_challenge_method: "S256",
      acr_values: "app_faceid",
    });
  });
});

describe("the acmeauth://login QR code's req parameter", () => {
  it("asks the app for what the login wants, and for nothing otherwise", () => {
    const uri = loginUri("https://id.example.com", "c".repeat(22), { gps: true, faceid: true });
    expect(uri).toBe(`acmeauth://login?issuer=https%3A%2F%2Fid.example.com&challenge=${"c".repeat(22)}&req=gps%2Cfaceid`);
    expect(parseAcmeAuthUri(uri)).toEqual({
      kind: "login",
      issuer: "https://id.example.com",
      challenge: "c".repeat(22),
      wants: { gps: true, faceid: true },
    });
    expect(parseAcmeAuthUri(loginUri("https://id.example.com", "c".repeat(22)))).toMatchObject({ wants: { gps: false, faceid: false } });
    expect(loginUri("https://id.example.com", "c".repeat(22), { gps: false, faceid: true })).toMatch(/&req=faceid$/);
  });
});
