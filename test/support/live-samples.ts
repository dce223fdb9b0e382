/**
 * Real values of a running demo provider for hostile-input suites: a signed-in browser's session
 * cookie, an open login page's interaction (id, binding cookie, CSRF token), tokens of the code flow
 * and the password grant, and JWSs of an enrolled trusted-app phone; and, per route, requests built
 * from them that a real client would send. Garbage mixed with these gets past a route's first check.
 */
import { generateKeyPair, exportJWK } from "jose";
import { expect } from "vitest";
import { paths } from "../../src/http-kit/paths.ts";
import { INTERACTION_COOKIE } from "../../src/http/authorize/interaction-cookie.ts";
import { SESSION_COOKIE } from "../../src/sessions/session-cookie.ts";
import { DEVICE_API_PATH } from "../../src/trusted-app/acmeauth-uri.ts";
import { DEVICE_JWS_TYPES } from "../../src/trusted-app/device-jws.ts";
import { SILENT_LOGIN_PARAMETER } from "../../src/trusted-app/silent-login-token.ts";
import { enrolledPhone, operatorEnrollUri } from "../trusted-app/trusted-app-support.ts";
import { authorizeUrl, loginWithPassword, openLoginPage, responseParams } from "./browser-login.ts";
import type { Samples } from "./hostile-input.ts";
import { hiddenField, RawBrowser } from "./raw-browser.ts";
import { postForm, type TestProvider } from "./test-provider.ts";

const WEB = {
  id: "demo-web",
  secret: "demo-web-secret",
  redirectUri: "http://localhost:3001/callback",
  postLogout: "http://localhost:3001/",
};
const CREDENTIALS: Array<[string, string]> = [
  [WEB.id, WEB.secret],
  ["demo-service", "demo-service-secret"],
  ["demo-legacy", "demo-legacy-secret"],
  ["acme-api", "acme-api-secret"],
];

/**
 * The samples, renewed when hostile requests used them up: a logout (end session, prompt=force_login)
 * ends the session, a right password finishes the open interaction.
 */
export class LiveSamples {
  private readonly p: TestProvider;
  private samples?: Samples;
  private session = "";
  private interaction = { id: "", cookie: "" };
  // Collected once: every renewal would enroll one more phone, and devices per user are limited.
  private device?: Promise<{ json: Samples["json"]; silentLogin: string }>;

  constructor(p: TestProvider) {
    this.p = p;
  }

  async current(): Promise<Samples> {
    const alive =
      this.samples !== undefined &&
      (await this.p.provider.sessions.find(this.session)) !== undefined &&
      (await this.p.provider.interactions.find(this.interaction.id, this.interaction.cookie)) !== undefined;
    if (!alive) this.samples = await this.collect();
    return this.samples!;
  }

  private async collect(): Promise<Samples> {
    const { p } = this;
    const browser = new RawBrowser();
    const alice = await codeFlowTokens(p, browser, "alice", "alice-password");
    // Bob signs in elsewhere: his ID token is a hint for someone other than this browser's user.
    const bob = await codeFlowTokens(p, new RawBrowser(), "bob", "bob-password");
    this.session = browser.cookies.get(SESSION_COOKIE)!.value;
    const accountCsrf = hiddenField((await browser.get(`${p.url}${paths.account}`)).text, "csrf")!;
    // A login page left open (prompt=login keeps the session): its interaction stays pending.
    const page = await openLoginPage(browser, authorizeUrl(p.issuer, { prompt: "login" }));
    this.interaction = { id: new URL(page.url).pathname.split("/").pop()!, cookie: browser.cookies.get(INTERACTION_COOKIE)!.value };
    const csrf = hiddenField(page.text, "csrf")!;
    const tokens = [alice, bob].flatMap((t) => [t.access_token, t.id_token, t.refresh_token]);
    this.device ??= deviceSamples(p);
    const device = await this.device;
    return {
      values: [this.interaction.id, csrf, accountCsrf, ...tokens, ...CREDENTIALS.map(([, secret]) => secret)],
      pathParams: [this.interaction.id],
      cookies: { [SESSION_COOKIE]: [this.session], [INTERACTION_COOKIE]: [this.interaction.cookie] },
      credentials: CREDENTIALS,
      tokens,
      forms: forms({ alice, bob, csrf, accountCsrf, silentLogin: device.silentLogin }),
      json: device.json,
      limits: {
        maxBodyBytes: p.provider.settings.security.max_body_bytes,
        maxParameterLength: p.provider.settings.security.max_parameter_length,
      },
    };
  }
}

type Tokens = Record<"access_token" | "id_token" | "refresh_token", string>;

/** Signs in through demo-web's login page (with offline access) and redeems the code. */
async function codeFlowTokens(p: TestProvider, browser: RawBrowser, username: string, password: string): Promise<Tokens> {
  const answer = await loginWithPassword(
    browser,
    authorizeUrl(p.issuer, { scope: "openid profile email offline_access" }),
    username,
    password,
  );
  const form = {
    grant_type: "authorization_code",
    code: responseParams(answer).get("code")!,
    redirect_uri: WEB.redirectUri,
    client_id: WEB.id,
    client_secret: WEB.secret,
  };
  const res = await postForm(`${p.url}${paths.token}`, form);
  expect(res.status, res.text).toBe(200);
  const tokens = res.json as Tokens;
  expect([typeof tokens.access_token, typeof tokens.id_token, typeof tokens.refresh_token]).toEqual(["string", "string", "string"]);
  return tokens;
}

/** What a real client sends each route, as name=value lists, for the generator to mutate. */
function forms(s: { alice: Tokens; bob: Tokens; csrf: string; accountCsrf: string; silentLogin: string }): Samples["forms"] {
  const authorize: Array<Record<string, string>> = [
    { client_id: WEB.id, redirect_uri: WEB.redirectUri, response_type: "code", scope: "openid profile", state: "st", nonce: "n" },
    {
      client_id: WEB.id,
      redirect_uri: WEB.redirectUri,
      response_type: "code",
      scope: "openid",
      prompt: "none",
      id_token_hint: s.alice.id_token,
      max_age: "60",
    },
    {
      client_id: "demo-spa",
      redirect_uri: "http://localhost:3002/callback",
      response_type: "code",
      scope: "openid",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
      response_mode: "form_post",
    },
    { client_id: WEB.id, redirect_uri: WEB.redirectUri, response_type: "code", scope: "openid", [SILENT_LOGIN_PARAMETER]: s.silentLogin },
  ];
  const interaction: Array<Record<string, string>> = [
    { csrf: s.csrf, event: "SUBMIT_PASSWORD", username: "bob", password: "wrong-password" },
    { csrf: s.csrf, event: "CHOOSE_METHOD", method: "password" },
    { csrf: s.csrf, event: "SUBMIT_USERNAME", username: "alice" },
    { csrf: s.csrf, event: "CHECK" },
  ];
  const account = [{ csrf: s.accountCsrf, method: "totp" }];
  return {
    [paths.authorize]: authorize,
    [paths.accountLogin]: authorize,
    [paths.iframeAuthorize]: authorize,
    [paths.token]: [
      { grant_type: "client_credentials", client_id: "demo-service", client_secret: "demo-service-secret", scope: "acme" },
      {
        grant_type: "password",
        client_id: "demo-legacy",
        client_secret: "demo-legacy-secret",
        username: "bob",
        password: "wrong-password",
        scope: "openid",
      },
      { grant_type: "refresh_token", client_id: WEB.id, client_secret: WEB.secret, refresh_token: s.alice.refresh_token },
      {
        grant_type: "authorization_code",
        client_id: WEB.id,
        client_secret: WEB.secret,
        code: "used-or-made-up",
        redirect_uri: WEB.redirectUri,
        code_verifier: "a".repeat(43),
      },
    ],
    [paths.pushedAuthorizationRequest]: [
      { ...authorize[0]!, client_secret: WEB.secret },
      { ...authorize[2]!, response_mode: "query" },
      { ...authorize[0]!, client_secret: WEB.secret, login_type: "Mfa", login_hint: "alice", fa: "totp", acr_values: "chnl_info" },
    ],
    [paths.introspection]: [{ token: s.alice.access_token }, { token: s.bob.refresh_token, token_type_hint: "refresh_token" }],
    [paths.revocation]: [{ token: s.alice.refresh_token, token_type_hint: "refresh_token" }],
    [paths.userinfo]: [{ access_token: s.alice.access_token }],
    [paths.endSession]: [
      { id_token_hint: s.bob.id_token, client_id: WEB.id },
      { id_token_hint: s.alice.id_token, post_logout_redirect_uri: WEB.postLogout, state: "st" },
      { client_id: WEB.id, ui_locales: "en" },
    ],
    [paths.endSessionConfirm]: [{ csrf: s.csrf, confirm: "yes" }],
    [`${paths.interaction}/:id`]: interaction,
    [`${paths.account}/enroll`]: account,
    [`${paths.account}/remove`]: account,
    [paths.account]: [{ enrolled: "totp" }],
    [`${paths.methods}/qrcode/challenges/:id`]: [{ seen: "pending" }, { seen: "expired" }],
  };
}

/**
 * JSON bodies of the trusted app's device API, signed by a phone enrolled for bob (each JWS passes
 * once; a copy is a replay), and a silent-login token for authorize.
 */
async function deviceSamples(p: TestProvider): Promise<{ json: Samples["json"]; silentLogin: string }> {
  const phone = await enrolledPhone(p, "E10002", "Bob's phone");
  const enrollToken = new URL(await operatorEnrollUri(p, "E10001")).searchParams.get("token")!;
  const { publicKey } = await generateKeyPair("ES256", { extractable: true });
  const signed = async (typ: (typeof DEVICE_JWS_TYPES)[keyof typeof DEVICE_JWS_TYPES], claims: Record<string, unknown> = {}) => ({
    jws: await phone.sign(typ, claims),
  });
  return {
    json: {
      [`${DEVICE_API_PATH}/enroll`]: [{ token: enrollToken, name: "Alice's other phone", public_jwk: await exportJWK(publicKey) }],
      [`${DEVICE_API_PATH}/scan`]: [await signed(DEVICE_JWS_TYPES.scan, { challenge: "made-up-challenge" })],
      [`${DEVICE_API_PATH}/approve`]: [await signed(DEVICE_JWS_TYPES.approve, { challenge: "made-up-challenge", number: "12" })],
      [`${DEVICE_API_PATH}/deny`]: [await signed(DEVICE_JWS_TYPES.deny, { challenge: "made-up-challenge" })],
      [`${DEVICE_API_PATH}/unenroll`]: [await signed(DEVICE_JWS_TYPES.unenroll)],
      [`${paths.methods}/totp/enrollment-secret`]: [{ handle: "made-up-handle" }],
      [`${paths.methods}/fido/options`]: [{ handle: "made-up-handle" }],
    },
    silentLogin: await phone.silentLoginToken(WEB.id),
  };
}
