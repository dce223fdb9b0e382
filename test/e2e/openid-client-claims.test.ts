import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendTo, clientEntry } from "../http/helpers.ts";
import { loginWithPassword } from "../support/browser-login.ts";
import { RawBrowser, type Answer } from "../support/raw-browser.ts";
import { startAuthorization, type PendingAuthorization } from "../support/rp-authorization.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * The claims parameter (OIDC Core §5.5), birthdate formats and unmet authentication requirements as a
 * certified relying-party library sees them: openid-client v6 builds the authorization URL with `claims`,
 * a raw browser logs in, and the library redeems the code (ID-token signature checks on) and asks userinfo.
 */
const WEB = { id: "demo-web", secret: "demo-web-secret", redirect: "http://localhost:3001/callback" };
const CERT = { id: "cert-rp", secret: "cert-rp-secret", redirect: "http://localhost:3013/callback" };
const STRICT = { id: "strict-rp", secret: "strict-rp-secret", redirect: "http://localhost:3014/callback" };

let op: TestProvider;

beforeAll(async () => {
  op = await startTestProvider({
    edits: {
      "clients.yaml": appendTo("clients", [
        clientEntry(CERT.id, CERT.secret, ["authorization_code"], ["openid", "profile", "email"], {
          redirect_uris: [CERT.redirect],
          birthdate_format: "oidc",
        }),
        clientEntry(STRICT.id, STRICT.secret, ["authorization_code"], ["openid", "profile"], {
          redirect_uris: [STRICT.redirect],
          minimum_acr: "2fa",
        }),
      ]),
    },
  });
}, 120_000);
afterAll(() => op?.close());

interface RelyingParty {
  config: oidc.Configuration;
  redirectUri: string;
}

async function relyingParty(client: { id: string; secret: string; redirect: string }): Promise<RelyingParty> {
  const execute = [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks];
  const config = await oidc.discovery(new URL(op.issuer), client.id, undefined, oidc.ClientSecretPost(client.secret), { execute });
  return { config, redirectUri: client.redirect };
}

function start(rp: RelyingParty, params: Record<string, string>): Promise<PendingAuthorization> {
  return startAuthorization(rp.config, { redirect_uri: rp.redirectUri, scope: "openid", ...params });
}

function finish(rp: RelyingParty, pending: PendingAuthorization, answer: Answer) {
  expect(answer.status, answer.text.slice(0, 300)).toBe(303);
  return oidc.authorizationCodeGrant(rp.config, new URL(answer.location!), pending.checks);
}

describe("the claims parameter through openid-client", () => {
  it("is advertised in discovery", async () => {
    const rp = await relyingParty(WEB);
    expect(rp.config.serverMetadata().claims_parameter_supported).toBe(true);
  });

  it("puts the id_token member's claims in the verified ID token and the userinfo member's in userinfo, birthdate yyyy/MM/dd", async () => {
    const rp = await relyingParty(WEB);
    const claims = JSON.stringify({
      id_token: { given_name: { essential: true }, family_name: null, birthdate: null },
      userinfo: { email: null, email_verified: null, preferred_username: null },
    });
    const pending = await start(rp, { claims });
    const tokens = await finish(rp, pending, await loginWithPassword(new RawBrowser(), pending.url.href));
    expect(tokens.claims()).toMatchObject({ sub: "E10001", given_name: "Alice", family_name: "Chen", birthdate: "1990/04/12" });
    expect(tokens.claims()).not.toHaveProperty("email");
    const userinfo = await oidc.fetchUserInfo(rp.config, tokens.access_token, "E10001");
    expect(userinfo).toEqual({ sub: "E10001", email: "alice@example.com", email_verified: true, preferred_username: "alice" });
  });

  it("gives a client with birthdate_format oidc YYYY-MM-DD in both places, and updated_at as a number", async () => {
    const rp = await relyingParty(CERT);
    const pending = await start(rp, {
      scope: "openid profile",
      claims: JSON.stringify({ id_token: { birthdate: null, updated_at: null } }),
    });
    const tokens = await finish(rp, pending, await loginWithPassword(new RawBrowser(), pending.url.href));
    expect(tokens.claims()).toMatchObject({ birthdate: "1990-04-12", updated_at: 1767225600 });
    const userinfo = await oidc.fetchUserInfo(rp.config, tokens.access_token, "E10001");
    expect(userinfo).toMatchObject({ birthdate: "1990-04-12", hiredate: "2015-08-03", given_name: "Alice", updated_at: 1767225600 });
  });

  it("ends an essential acr no login can reach in unmet_authentication_requirements, which the library raises", async () => {
    const rp = await relyingParty(WEB);
    const pending = await start(rp, { claims: JSON.stringify({ id_token: { acr: { essential: true, value: "urn:example:loa4" } } }) });
    const answer = await new RawBrowser().get(pending.url.href);
    await expect(finish(rp, pending, answer)).rejects.toMatchObject({
      name: "AuthorizationResponseError",
      error: "unmet_authentication_requirements",
    });
  });

  it("ends a request below the client's minimum_acr in unmet_authentication_requirements at the client", async () => {
    const rp = await relyingParty(STRICT);
    const pending = await start(rp, { login_type: "MfaTotp", login_hint: "alice" });
    const answer = await new RawBrowser().get(pending.url.href);
    await expect(finish(rp, pending, answer)).rejects.toMatchObject({
      name: "AuthorizationResponseError",
      error: "unmet_authentication_requirements",
    });
  });
});
