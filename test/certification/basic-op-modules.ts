/**
 * The modules of the suite's Basic OP plan (oidcc-basic-certification-test-plan), each as the requests it
 * makes and the checks it applies, written from the modules' descriptions. The Form Post OP plan runs the
 * same modules with response_mode=form_post, so both test files take their modules from here, in the
 * plan's order. Where the suite only warns, the check asserts what this provider does and says so; where
 * the suite lets an OP decline (request objects, `none` ID tokens, scopes it does not serve), the module
 * asserts that the decline is the one the suite accepts.
 */
import { randomBytes } from "node:crypto";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { expect } from "vitest";
import { s256Challenge } from "../../src/oauth/pkce.ts";
import {
  authorizationRequest,
  codeFlow,
  expectCodeResponse,
  expectErrorResponse,
  expectIdToken,
  expectTokenResponse,
  expectUserinfo,
  RawBrowser,
  redeemCode,
  redirectParams,
  runAuthorization,
  submitFormPost,
  tokenRequest,
  userinfo,
  type AuthorizationRequest,
  type CertificationStand,
} from "./certification-stand.ts";
import type { Answer } from "../support/raw-browser.ts";
import { generate } from "otplib";
import { postStep } from "../support/code-login.ts";
import { enrolledPhone, numberOn, pollOnce, press } from "../trusted-app/trusted-app-support.ts";

export type ResponseMode = "default" | "form_post";

export interface CertificationModule {
  name: string;
  run(stand: CertificationStand): Promise<void>;
}

/** The Basic OP plan's modules for one response mode. */
export function basicOpModules(mode: ResponseMode): CertificationModule[] {
  const formPost = mode === "form_post";
  /** An authorization request of the plan's static client in this plan's response mode. */
  const request = (stand: CertificationStand, params: Record<string, string | undefined> = {}, client = stand.clients.basic) =>
    authorizationRequest(stand, client, { ...(formPost && { response_mode: "form_post" }), ...params });
  /** The authorization response's parameters, however this mode delivers them. */
  const responseOf = (stand: CertificationStand, browser: RawBrowser, answer: Answer, req: AuthorizationRequest) =>
    formPost ? submitFormPost(stand, browser, answer, req) : Promise.resolve(redirectParams(answer, req));
  const flow = (stand: CertificationStand, browser: RawBrowser, req: AuthorizationRequest, options: Parameters<typeof codeFlow>[3] = {}) =>
    codeFlow(stand, browser, req, { formPost, ...options });
  /** A login, then a second request in the same browser; both flows' results. */
  const twice = async (stand: CertificationStand, first: Record<string, string>, second: Record<string, string>, between = () => {}) => {
    const browser = new RawBrowser();
    const one = await flow(stand, browser, request(stand, first));
    expect(one.loginShown).toBe(true);
    between();
    const req = request(stand, second);
    return { browser, one, two: await flow(stand, browser, req), req };
  };
  /** An authorization that must end in an error response of one of `errors`, never a code. */
  const expectAuthorizationError = async (stand: CertificationStand, req: AuthorizationRequest, errors: string[]) => {
    const browser = new RawBrowser();
    const { answer, loginShown } = await runAuthorization(browser, req, { login: false });
    expect(loginShown, "an error is answered before any login").toBe(false);
    expectErrorResponse(stand, await responseOf(stand, browser, answer, req), req, errors);
  };

  return [
    {
      name: "oidcc-server",
      async run(stand) {
        const { tokens, claims } = await flow(stand, new RawBrowser(), request(stand));
        expectUserinfo(await userinfo(stand, tokens.access_token), claims);
      },
    },
    {
      name: "oidcc-response-type-missing",
      async run(stand) {
        // The suite accepts an unsupported_response_type or invalid_request error at the redirect_uri, or an error page.
        // We redirect: the client and redirect_uri are valid, so the error can go back to the client.
        await expectAuthorizationError(stand, request(stand, { response_type: undefined }), [
          "invalid_request",
          "unsupported_response_type",
        ]);
      },
    },
    {
      name: "oidcc-idtoken-signature",
      async run(stand) {
        // No alg asked for: RS256, with the kid of a published key (expectIdToken verifies against the JWKS).
        const { tokens } = await flow(stand, new RawBrowser(), request(stand));
        expect(JSON.parse(Buffer.from(tokens.id_token.split(".")[0]!, "base64url").toString())).toMatchObject({ alg: "RS256" });
      },
    },
    {
      name: "oidcc-idtoken-unsigned",
      async run(stand) {
        // Declined the way the suite accepts: `none` is not in id_token_signing_alg_values_supported, so the
        // module is skipped; and a static client cannot ask for it, every ID token is signed.
        expect(stand.discovery.id_token_signing_alg_values_supported).not.toContain("none");
        const { tokens } = await flow(stand, new RawBrowser(), request(stand));
        expect(tokens.id_token.split(".")[2]).not.toBe("");
      },
    },
    {
      name: "oidcc-userinfo-get",
      async run(stand) {
        const { tokens, claims } = await flow(stand, new RawBrowser(), request(stand));
        expectStandardClaimTypes(expectUserinfo(await userinfo(stand, tokens.access_token, "get"), claims));
      },
    },
    {
      name: "oidcc-userinfo-post-header",
      async run(stand) {
        const { tokens, claims } = await flow(stand, new RawBrowser(), request(stand));
        expectUserinfo(await userinfo(stand, tokens.access_token, "post-header"), claims);
      },
    },
    {
      name: "oidcc-userinfo-post-body",
      async run(stand) {
        // Optional in the standards (the suite warns on an error); we take the token from a form body.
        const { tokens, claims } = await flow(stand, new RawBrowser(), request(stand));
        expectUserinfo(await userinfo(stand, tokens.access_token, "post-body"), claims);
      },
    },
    {
      name: "oidcc-ensure-request-without-nonce-succeeds-for-code-flow",
      async run(stand) {
        const { claims } = await flow(stand, new RawBrowser(), request(stand, { nonce: undefined }));
        expect(claims.nonce).toBeUndefined();
      },
    },
    {
      name: "oidcc-scope-profile",
      async run(stand) {
        const userinfo = await scopeFlow(stand, request(stand, { scope: "openid profile" }));
        // The suite only warns when a scope's claims are missing; ours come back.
        expect(userinfo.name).toEqual(expect.any(String));
      },
    },
    {
      name: "oidcc-scope-email",
      async run(stand) {
        const userinfo = await scopeFlow(stand, request(stand, { scope: "openid email" }));
        // Returned from userinfo (the suite warns if elsewhere or missing).
        expect(userinfo.email).toEqual(expect.any(String));
      },
    },
    {
      name: "oidcc-scope-address",
      async run(stand) {
        const req = request(stand, { scope: "openid address" });
        await expectScopeNotServed(stand, req, "address", (browser, answer) => responseOf(stand, browser, answer, req));
      },
    },
    {
      name: "oidcc-scope-phone",
      async run(stand) {
        const req = request(stand, { scope: "openid phone" });
        await expectScopeNotServed(stand, req, "phone", (browser, answer) => responseOf(stand, browser, answer, req));
      },
    },
    {
      name: "oidcc-scope-all",
      async run(stand) {
        // The suite asks for all four at once and skips unless all are advertised; two are not served here.
        const req = request(stand, { scope: "openid email phone address profile" });
        await expectScopeNotServed(stand, req, "phone", (browser, answer) => responseOf(stand, browser, answer, req));
      },
    },
    {
      name: "oidcc-alternate-happy-flow",
      async run(stand) {
        // Scope values reversed and the parameters in another order: order means nothing (RFC 6749 §3.3).
        const ordered = request(stand, { scope: "email profile openid" });
        const url = new URL(ordered.url);
        const reversed = new URL(url.origin + url.pathname);
        for (const [name, value] of [...url.searchParams].reverse()) reversed.searchParams.append(name, value);
        const { tokens, claims } = await flow(stand, new RawBrowser(), { ...ordered, url: reversed.href });
        const info = expectUserinfo(await userinfo(stand, tokens.access_token), claims);
        expect(info.email).toEqual(expect.any(String));
      },
    },
    {
      name: "oidcc-display-page",
      async run(stand) {
        const { loginShown } = await flow(stand, new RawBrowser(), request(stand, { display: "page" }));
        expect(loginShown).toBe(true);
      },
    },
    {
      name: "oidcc-display-popup",
      async run(stand) {
        // Not in display_values_supported: the value is ignored (Core §15.1 says it must cause no error), a normal page shown.
        expect(stand.discovery.display_values_supported).not.toContain("popup");
        const { loginShown } = await flow(stand, new RawBrowser(), request(stand, { display: "popup" }));
        expect(loginShown).toBe(true);
      },
    },
    {
      name: "oidcc-prompt-login",
      async run(stand) {
        const { one, two } = await twice(stand, {}, { prompt: "login" }, () => stand.advanceClock(2));
        expect(two.loginShown, "prompt=login asks for a login again").toBe(true);
        expect(two.claims.sub).toBe(one.claims.sub);
        expect(two.claims.auth_time).toBeGreaterThan(one.claims.auth_time as number);
      },
    },
    {
      name: "oidcc-prompt-none-not-logged-in",
      async run(stand) {
        // Core §3.1.2.6: no session, so no silent login; we answer login_required.
        await expectAuthorizationError(stand, request(stand, { prompt: "none" }), ["login_required"]);
      },
    },
    {
      name: "oidcc-prompt-none-logged-in",
      async run(stand) {
        const { one, two } = await twice(stand, {}, { prompt: "none" });
        expect(two.loginShown).toBe(false);
        expect(two.claims.sub).toBe(one.claims.sub);
        expect(two.claims.auth_time).toBe(one.claims.auth_time);
      },
    },
    {
      name: "oidcc-max-age-1",
      async run(stand) {
        // The suite waits a second; the provider's clock is moved on instead.
        const { one, two } = await twice(stand, {}, { max_age: "1" }, () => stand.advanceClock(2));
        expect(two.loginShown, "a session older than max_age asks for a login").toBe(true);
        expect(two.claims.auth_time).toEqual(expect.any(Number));
        expect(two.claims.auth_time).toBeGreaterThan(one.claims.auth_time as number);
      },
    },
    {
      name: "oidcc-max-age-10000",
      async run(stand) {
        const { one, two } = await twice(stand, { max_age: "15000" }, { max_age: "10000" });
        expect(one.claims.auth_time).toEqual(expect.any(Number));
        expect(two.loginShown).toBe(false);
        expect(two.claims.auth_time).toBe(one.claims.auth_time);
        expect(two.claims.sub).toBe(one.claims.sub);
      },
    },
    {
      name: "oidcc-ensure-request-with-unknown-parameter-succeeds",
      async run(stand) {
        await flow(stand, new RawBrowser(), request(stand, { extra: "foobar" }));
      },
    },
    {
      name: "oidcc-id-token-hint",
      async run(stand) {
        const browser = new RawBrowser();
        const one = await flow(stand, browser, request(stand));
        const two = await flow(stand, browser, request(stand, { prompt: "none", id_token_hint: one.tokens.id_token }));
        expect(two.loginShown).toBe(false);
        expect(two.claims.sub).toBe(one.claims.sub);
        expect(two.claims.auth_time).toBe(one.claims.auth_time);
      },
    },
    {
      name: "oidcc-login-hint",
      async run(stand) {
        // The suite's default hint names a user of the issuer's host; it must cause no error, a login follows.
        const { loginShown } = await flow(
          stand,
          new RawBrowser(),
          request(stand, { login_hint: `buffy@${new URL(stand.issuer).hostname}` }),
        );
        expect(loginShown).toBe(true);
      },
    },
    {
      name: "oidcc-ui-locales",
      async run(stand) {
        // "se" is none of ours: the page falls back to a supported language, without error.
        const { loginShown } = await flow(stand, new RawBrowser(), request(stand, { ui_locales: "se" }));
        expect(loginShown).toBe(true);
      },
    },
    {
      name: "oidcc-claims-locales",
      async run(stand) {
        const { tokens, claims } = await flow(stand, new RawBrowser(), request(stand, { claims_locales: "se" }));
        expectUserinfo(await userinfo(stand, tokens.access_token), claims);
      },
    },
    {
      name: "oidcc-ensure-request-with-acr-values-succeeds",
      async run(stand) {
        // Every advertised value at once: they are preferences, so the login succeeds; the suite passes
        // (rather than warns) when the acr claim is one of them, which it is here.
        const supported = stand.discovery.acr_values_supported as string[];
        expect(supported.length).toBeGreaterThan(1);
        // Taken in order: 1fa names only the claim's value, 2fa is the two-factor login, must_bfido is set
        // aside beside it, and app_gps and app_faceid ask for the trusted app's scan with its position and
        // face check. 2FA wants a trusted method and one of another kind: alice scans with her phone (the
        // only first method offered), then gives her authenticator app's code.
        const phone = await enrolledPhone(stand.provider);
        const totp = stand.provider.provider.methods.get("totp")!;
        const secret = new URL(await totp.plugin.enrollByOperator!(totp.context, "E10001", {})).searchParams.get("secret")!;
        const req = request(stand, { acr_values: supported.join(" ") });
        const browser = new RawBrowser();
        const { answer: scanPage, loginShown } = await runAuthorization(browser, req, { login: false });
        expect(loginShown).toBe(true);
        const { uri } = await pollOnce(browser, scanPage);
        expect(new URL(uri!).searchParams.get("req")).toBe("gps,faceid");
        await phone.scan(uri!, { gps: { lat: 25.03, lnt: 121.56 }, faceid: "pass" });
        const approval = await press(browser, scanPage, "CHECK");
        await phone.approve(numberOn(approval));
        expect(await pollOnce(browser, approval, "scanned")).toEqual({ state: "approved" });
        const totpPage = await press(browser, approval, "CHECK");
        expect(totpPage.text).toContain('class="method method-totp"');
        const totpCode = await generate({ secret, epoch: Math.floor(stand.now() / 1000) });
        const channelPage = await browser.follow(await postStep(browser, totpPage, { event: "SUBMIT_CODE", code: totpCode }));
        // req_chnl and chnl_info: alice administers several channels and picks one.
        expect(channelPage.text).toContain('value="CHOOSE_CHANNEL"');
        const answer = await browser.follow(await postStep(browser, channelPage, { event: "CHOOSE_CHANNEL", channel: "north-store" }));
        const code = expectCodeResponse(stand, await responseOf(stand, browser, answer, req), req);
        const tokens = expectTokenResponse(await redeemCode(stand, req, code));
        const claims = await expectIdToken(stand, tokens.id_token, req, tokens.access_token);
        expect(claims).toMatchObject({
          acr: "2fa",
          amr: expect.arrayContaining(["qrcode", "totp"]),
          gps: { lat: 25.03 },
          chnl: "north-store",
        });
        expect(claims.chnl_name).toEqual(expect.any(String));
        expect(supported).toContain(claims.acr);
      },
    },
    {
      name: "oidcc-codereuse",
      async run(stand) {
        const req = request(stand);
        const { code, tokens } = await flow(stand, new RawBrowser(), req);
        const again = await redeemCode(stand, req, code);
        // The suite warns on anything else; we answer invalid_grant.
        expect(again.status).toBe(400);
        expect(again.json!.error).toBe("invalid_grant");
        expect(again.json!.access_token).toBeUndefined();
        expect(tokens.access_token).toBeTruthy();
      },
    },
    {
      name: "oidcc-codereuse-30seconds",
      async run(stand) {
        const req = request(stand);
        const { code, tokens } = await flow(stand, new RawBrowser(), req);
        stand.advanceClock(30);
        const again = await redeemCode(stand, req, code);
        expect(again.status).toBe(400);
        expect(again.json!.error).toBe("invalid_grant");
        // RFC 6749 §4.1.2: the tokens issued for the code are revoked (the suite warns if the access token still works).
        const info = await userinfo(stand, tokens.access_token);
        expect(info.status).toBe(401);
      },
    },
    {
      name: "oidcc-ensure-registered-redirect-uri",
      async run(stand) {
        // An unregistered redirect_uri: an error page of our own, never a redirect there.
        const req = request(stand, { redirect_uri: `${stand.clients.basic.redirectUri}/unregistered` });
        const browser = new RawBrowser();
        const { answer, loginShown } = await runAuthorization(browser, req, { login: false });
        expect(loginShown).toBe(false);
        expect(answer.status).toBe(400);
        expect(answer.location).toBeUndefined();
        expect(answer.text).not.toContain("/unregistered");
        expect(answer.text).toContain("redirect_uri");
      },
    },
    {
      name: "oidcc-ensure-post-request-succeeds",
      async run(stand) {
        await flow(stand, new RawBrowser(), request(stand), { method: "POST" });
      },
    },
    {
      name: "oidcc-server-client-secret-post",
      async run(stand) {
        const { tokens, claims } = await flow(stand, new RawBrowser(), request(stand), { auth: "client_secret_post" });
        expectUserinfo(await userinfo(stand, tokens.access_token), claims);
      },
    },
    {
      name: "oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported",
      async run(stand) {
        // Declined: request_uri_parameter_supported is false, and a request_uri is answered with
        // request_uri_not_supported at the redirect_uri (in the response mode asked for), never fetched.
        expect(stand.discovery.request_uri_parameter_supported).toBe(false);
        const before = stand.received.length;
        const objectUri = `${new URL(stand.clients.basic.redirectUri).origin}/request-object/${randomBytes(6).toString("hex")}`;
        await expectAuthorizationError(stand, request(stand, { request_uri: objectUri }), ["request_uri_not_supported"]);
        expect(stand.received.slice(before).some((r) => r.path.startsWith("/request-object/"))).toBe(false);
      },
    },
    {
      name: "oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported",
      async run(stand) {
        // Declined: request_parameter_supported is false, and an unsigned request object by value is
        // answered with request_not_supported at the redirect_uri, in the response mode the object asks for.
        expect(stand.discovery.request_parameter_supported).toBe(false);
        // As the suite sends it: state, nonce and response_mode only in the object.
        await expectAuthorizationError(stand, byRequestObject(request(stand)), ["request_not_supported"]);
      },
    },
    {
      name: "oidcc-claims-essential",
      async run(stand) {
        // name asked for as essential in userinfo, with scope openid alone (the suite only warns when it is
        // missing). The claims parameter is supported: a claim some scope the client is allowed releases
        // (profile, for these clients) comes back though the request's scope is openid alone (docs/claims.md).
        const claimsParameter = JSON.stringify({ userinfo: { name: { essential: true } } });
        const { tokens, claims } = await flow(stand, new RawBrowser(), request(stand, { claims: claimsParameter }));
        const info = expectUserinfo(await userinfo(stand, tokens.access_token), claims);
        expect(stand.discovery.claims_parameter_supported).toBe(true);
        expect(info.name).toEqual(expect.any(String));
        // Asked for in userinfo only: not in the ID token (the suite warns otherwise).
        expect(claims.name).toBeUndefined();
      },
    },
    {
      name: "oidcc-ensure-request-object-with-redirect-uri",
      async run(stand) {
        // The object names another redirect_uri than the query. Declined like any request object: the
        // error goes to the query's registered redirect_uri, and the object's URI is never used.
        const elsewhere = `${stand.clients.basic.redirectUri}/from-request-object`;
        await expectAuthorizationError(stand, byRequestObject(request(stand), { redirect_uri: elsewhere }), ["request_not_supported"]);
        expect(stand.received.some((r) => r.path.endsWith("/from-request-object"))).toBe(false);
      },
    },
    {
      name: "oidcc-refresh-token",
      async run(stand) {
        // offline_access is advertised, so the suite asks for it; the refresh token must work for its
        // client and be refused to the second client (bound to the client it was issued to).
        expect(stand.discovery.scopes_supported).toContain("offline_access");
        expect(stand.discovery.grant_types_supported).toContain("refresh_token");
        const req = request(stand, { scope: "openid offline_access", prompt: "consent" });
        const { tokens, claims } = await flow(stand, new RawBrowser(), req);
        expect(tokens.refresh_token).toMatch(/^[\x20-\x7E]+$/);
        // The suite waits a second before refreshing (the new ID token's iat must differ) and repeats the scope.
        stand.advanceClock(2);
        const refreshed = expectRefreshed(
          await tokenRequest(stand, stand.clients.basic, {
            grant_type: "refresh_token",
            refresh_token: tokens.refresh_token!,
            scope: "openid offline_access",
          }),
        );
        // An ID token on refresh is optional (the suite only notes its absence); we issue one, and OIDC
        // Core §12.2 fixes it: the same iss, sub, aud, azp and auth_time, a new iat, signed as the first.
        expect(refreshed.id_token).toEqual(expect.any(String));
        const { payload } = await jwtVerify(refreshed.id_token!, createRemoteJWKSet(new URL(stand.discovery.jwks_uri as string)), {
          issuer: stand.issuer,
          audience: stand.clients.basic.id,
          algorithms: ["RS256"],
        });
        for (const claim of ["sub", "aud", "azp", "auth_time"]) expect(payload[claim], claim).toEqual(claims[claim]);
        expect(payload.iat).toBeGreaterThan(claims.iat!);
        expectUserinfo(await userinfo(stand, refreshed.access_token), claims);
        const stolen = await tokenRequest(stand, stand.clients.second, {
          grant_type: "refresh_token",
          refresh_token: refreshed.refresh_token ?? tokens.refresh_token!,
        });
        expect(stolen.status).toBe(400);
        expect(stolen.json!.error).toBe("invalid_grant");
      },
    },
    {
      name: "oidcc-ensure-request-with-valid-pkce-succeeds",
      async run(stand) {
        const verifier = randomBytes(32).toString("base64url");
        const req = request(stand, { code_challenge: s256Challenge(verifier), code_challenge_method: "S256" });
        await flow(stand, new RawBrowser(), req, { tokenExtra: { code_verifier: verifier } });
      },
    },
  ];
}

/** A code flow with a scope, and the checks the suite applies to the userinfo answer; the answer. */
async function scopeFlow(stand: CertificationStand, req: AuthorizationRequest): Promise<Record<string, unknown>> {
  const formPost = new URL(req.url).searchParams.get("response_mode") === "form_post";
  const { tokens, claims } = await codeFlow(stand, new RawBrowser(), req, { formPost });
  const info = expectUserinfo(await userinfo(stand, tokens.access_token), claims);
  expectStandardClaimTypes(info);
  return info;
}

/**
 * A scope the suite skips the module for, because scopes_supported does not list it: this deployment
 * keeps no postal addresses or phone numbers of its employees. Asked for all the same, it is refused
 * before any login with invalid_scope at the redirect_uri (RFC 6749 §4.1.2.1), naming the scope.
 */
async function expectScopeNotServed(
  stand: CertificationStand,
  req: AuthorizationRequest,
  scope: "address" | "phone",
  responseOf: (browser: RawBrowser, answer: Answer) => Promise<URLSearchParams>,
): Promise<void> {
  expect(stand.discovery.scopes_supported).not.toContain(scope);
  const browser = new RawBrowser();
  const { answer, loginShown } = await runAuthorization(browser, req, { login: false });
  expect(loginShown).toBe(false);
  const params = await responseOf(browser, answer);
  expectErrorResponse(stand, params, req, ["invalid_scope"]);
  expect(params.get("error_description")).toContain(scope);
}

/**
 * The types Core §5.1 gives the standard claims, as the suite validates every userinfo answer, and
 * birthdate's format: YYYY-MM-DD (or a year alone, or 0000-MM-DD). The certification clients opt into it
 * with `birthdate_format: oidc`; the spec's yyyy/MM/dd stays every other client's.
 */
export function expectStandardClaimTypes(info: Record<string, unknown>): void {
  const strings = ["sub", "name", "given_name", "family_name", "middle_name", "nickname", "preferred_username", "profile"];
  strings.push("picture", "website", "email", "gender", "birthdate", "zoneinfo", "locale", "phone_number");
  for (const claim of strings) if (claim in info) expect(typeof info[claim], claim).toBe("string");
  for (const claim of ["email_verified", "phone_number_verified"]) if (claim in info) expect(typeof info[claim], claim).toBe("boolean");
  if ("updated_at" in info) expect(typeof info.updated_at).toBe("number");
  if ("birthdate" in info) expect(info.birthdate).toMatch(/^\d{4}(-\d{2}-\d{2})?$/);
  if ("address" in info) expect(typeof info.address).toBe("object");
}

/** The suite's refresh response checks: 200, JSON, no-store, a Bearer access token of token characters. */
function expectRefreshed(answer: Awaited<ReturnType<typeof tokenRequest>>) {
  expect(answer.status, answer.text).toBe(200);
  expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
  expect(answer.headers.get("cache-control")).toContain("no-store");
  const json = answer.json as { access_token: string; token_type: string; refresh_token?: string; id_token?: string };
  expect(json.token_type.toLowerCase()).toBe("bearer");
  expect(json.access_token).toMatch(/^[\x20-\x7E]+$/);
  return json;
}

/**
 * The request by value as the suite sends it: the query keeps what OIDC Core §6.1 wants outside
 * (client_id, response_type, scope) and redirect_uri; every parameter, state and response_mode included,
 * goes into an unsigned request object (alg none), with `inObject` over them.
 */
function byRequestObject(req: AuthorizationRequest, inObject: Record<string, string> = {}): AuthorizationRequest {
  const url = new URL(req.url);
  const claims = { ...Object.fromEntries(url.searchParams), ...inObject, iss: req.client.id, aud: url.origin };
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const outside = new URL(url.origin + url.pathname);
  for (const name of ["client_id", "response_type", "scope", "redirect_uri"]) outside.searchParams.set(name, url.searchParams.get(name)!);
  outside.searchParams.set("request", `${part({ alg: "none" })}.${part(claims)}.`);
  return { ...req, url: outside.href };
}
