import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeUrl, loginWithPassword, responseParams, submitPassword } from "../support/browser-login.ts";
import { redeemCode, verifyIdToken } from "../support/code-grant.ts";
import { extraUsers, submitStep } from "../support/method-pages.ts";
import { RawBrowser, type Answer } from "../support/raw-browser.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { decodeJwt } from "jose";
import { readFileSync } from "node:fs";
import { vendorSignature } from "../../src/login-policy/vendor-signature.ts";
import { appendTo, clientEntry } from "../http/helpers.ts";
import { hashPassword } from "../../src/crypto/password-hash.ts";

/**
 * The login plan wired into the server, over real HTTP: login_type picks the flow, acr_values 2fa
 * steps a one-factor session up, Mfa keeps no SSO state, the token endpoint's login_type rule, the
 * client's allowed_login_types, and req_chnl's claims and chooser. Users get TOTP through the
 * plugin's operator enrollment; codes come from otplib as an authenticator app computes them.
 */
const VENDOR = {
  id: "demo-vendor",
  secret: "demo-vendor-secret",
  redirect: "http://localhost:3004/callback",
  key: readFileSync(new URL("../../config/demo-vendor-signing-key", import.meta.url), "utf8").trim(),
};
const VENDOR_ACCOUNT = "demo-vendor:acme-support";

/** Users of their own for the Mfa, prompt=login and acr_values 2FA tests: each TOTP time step is accepted once per user. */
const USERS = ["carol", "dave", "erin", "fay"] as const;
let p: TestProvider;
const secrets = new Map<string, string>();

beforeAll(async () => {
  p = await startTestProvider({
    edits: {
      "provider.yaml": { "security.login_requests_per_ip.max": 10_000 },
      "users.yaml": extraUsers(USERS, { erin: await hashPassword("erin-password"), fay: await hashPassword("fay-password") }),
      // A login type an operator adds with YAML only: face as the fixed second factor.
      "login.yaml": {
        "login_types.MfaFace": {
          flow: "second_factor",
          methods: ["face"],
          fa: false,
          sso: false,
          login_hint: "required",
          repeat_login_type_at_token: true,
        },
      },
      // A client limited to one login type (allowed_login_types is enforced).
      "clients.yaml": appendTo("clients", [
        clientEntry("mfa-only", "mfa-only-secret", ["authorization_code"], ["openid", "profile"], {
          redirect_uris: ["http://localhost:3009/callback"],
          allowed_login_types: ["MfaTotp"],
        }),
      ]),
    },
  });
  const totp = p.provider.methods.get("totp")!;
  for (const username of ["alice", "bob", ...USERS]) {
    const uri = await totp.plugin.enrollByOperator!(
      totp.context,
      (await p.provider.policies.current().users.findByUsername(username))!.sub,
      {},
    );
    secrets.set(username, new URL(uri).searchParams.get("secret")!);
  }
  // The vendor account of the signed-link tests has its TOTP from an operator.
  const vendorUri = await totp.plugin.enrollByOperator!(totp.context, VENDOR_ACCOUNT, {});
  secrets.set(VENDOR_ACCOUNT, new URL(vendorUri).searchParams.get("secret")!);
  const face = p.provider.methods.get("face")!;
  await face.plugin.enrollByOperator!(face.context, "E10001", { key: "dev-face-alice" });
});
afterAll(() => p.close());

/** A TOTP code for `username` that has not been used yet: the method takes each time step once per user. */
const usedSteps = new Map<string, number>();
async function freshCode(username: string): Promise<string> {
  for (;;) {
    const step = Math.floor(Date.now() / 30_000);
    if (usedSteps.get(username) !== step) {
      usedSteps.set(username, step);
      return generate({ secret: secrets.get(username)!, epoch: Math.floor(Date.now() / 1000) });
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function open(browser: RawBrowser, extra: Record<string, string | undefined>): Promise<Answer> {
  return browser.follow(await browser.get(authorizeUrl(p.issuer, extra)));
}

async function passTotp(browser: RawBrowser, page: Answer, username: string): Promise<Answer> {
  expect(page.text, page.text.slice(0, 400)).toContain('value="SUBMIT_CODE"');
  return submitStep(browser, page, { event: "SUBMIT_CODE", code: await freshCode(username) });
}

describe("login_type 2FA", () => {
  it("logs in with a password and a TOTP code (fa orders them); amr names both and mfa in both tokens, acr is 2fa", async () => {
    const browser = new RawBrowser();
    const first = await open(browser, { login_type: "2FA", fa: "password/totp" });
    // The page offers only what fa chose, password first.
    expect(first.text).toContain('name="password"');
    expect(first.text).not.toContain('value="qrcode"');
    const second = await submitPassword(browser, first, "alice", "alice-password");
    expect(second.status).toBe(200);
    // The second factor offers only the class still missing: no password, no switching back.
    expect(second.text).not.toContain('value="password"');
    const answer = await passTotp(browser, second, "alice");
    const params = responseParams(answer);
    expect(params.get("login_type")).toBe("2FA");
    expect(params.get("state")).toBe("st-1");
    const tokens = await redeemCode(p, params.get("code")!, { code_verifier: undefined });
    expect(tokens.status).toBe(200);
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({
      sub: "E10001",
      amr: ["password", "totp", "mfa"],
      acr: "2fa",
    });
    expect(decodeJwt(tokens.json!.access_token as string)).toMatchObject({ amr: ["password", "totp", "mfa"], acr: "2fa" });
  });

  it("refuses a login type the client may not use (unauthorized_client at its redirect URI)", async () => {
    const answer = await new RawBrowser().get(
      authorizeUrl(p.issuer, { client_id: "mfa-only", redirect_uri: "http://localhost:3009/callback", login_type: "2FA" }),
    );
    const params = responseParams(answer);
    expect(params.get("error")).toBe("unauthorized_client");
    expect(params.get("iss")).toBe(p.issuer);
  });

  it("refuses contradictions of its own parameters and unknown types with invalid_request, state and iss at the redirect URI", async () => {
    for (const extra of [{ login_type: "NoSuchType" }, { fa: "totp" }, { login_type: "2FA", fa: "totp,nope" }]) {
      const params = responseParams(await new RawBrowser().get(authorizeUrl(p.issuer, extra)));
      expect(params.get("error"), JSON.stringify(extra)).toBe("invalid_request");
      expect(params.get("state")).toBe("st-1");
      expect(params.get("iss")).toBe(p.issuer);
    }
  });
});

describe("acr_values as login.yaml declares them, and the client's allowed login types", () => {
  it("sets aside an acr value that contradicts login_type (acr_values are preferences): the login_type's login page, never an error", async () => {
    for (const extra of [
      { acr_values: "must_bfido", login_type: "2FA" },
      { acr_values: "2fa", login_type: "MfaTotp", login_hint: "alice" },
    ]) {
      const answer = await new RawBrowser().get(authorizeUrl(p.issuer, extra));
      expect(answer.status, JSON.stringify(extra)).toBe(303);
      expect(answer.location, JSON.stringify(extra)).toMatch(new RegExp(`^${p.issuer}/interaction/`));
    }
  });

  it("takes acr_values=2FA (the spec's 2fa in upper case) as the two-factor login: a one-factor session is never enough", async () => {
    const browser = new RawBrowser();
    expect(responseParams(await loginWithPassword(browser, authorizeUrl(p.issuer), "bob", "bob-password")).get("code")).toBeTruthy();
    for (const value of ["2FA", "2Fa"]) {
      const silent = responseParams(await browser.get(authorizeUrl(p.issuer, { acr_values: value, prompt: "none" })));
      expect(silent.get("error"), value).toBe("interaction_required");
      expect(silent.get("code")).toBeNull();
    }
    // Without a session a password is not enough: the untrusted class follows, then a 2fa code.
    const fresh = new RawBrowser();
    const second = await loginWithPassword(fresh, authorizeUrl(p.issuer, { acr_values: "2FA" }), "fay", "fay-password");
    expect(second.status, second.text.slice(0, 300)).toBe(200);
    const tokens = await redeemCode(p, responseParams(await passTotp(fresh, second, "fay")).get("code")!, { code_verifier: undefined });
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({ acr: "2fa", amr: ["password", "totp", "mfa"] });
  });

  it("refuses a vendor-only client's login without login_type: allowed_login_types covers the default login too", async () => {
    const params = responseParams(
      await new RawBrowser().get(authorizeUrl(p.issuer, { client_id: VENDOR.id, redirect_uri: VENDOR.redirect, scope: "openid profile" })),
    );
    expect(params.get("error")).toBe("unauthorized_client");
    expect(params.get("error_description")).toBe("this client may use only login_type MyVendor: name one");
    expect(params.get("state")).toBe("st-1");
  });
});

describe("step-up (acr_values 2fa over a one-factor session)", () => {
  it("answers prompt=none with interaction_required, then asks only for the missing factor and never issues a 1fa code", async () => {
    const browser = new RawBrowser();
    expect(responseParams(await loginWithPassword(browser, authorizeUrl(p.issuer), "bob", "bob-password")).get("code")).toBeTruthy();

    const silent = responseParams(await browser.get(authorizeUrl(p.issuer, { acr_values: "2fa", prompt: "none" })));
    expect(silent.get("error")).toBe("interaction_required");
    expect(silent.get("code")).toBeNull();

    const page = await open(browser, { acr_values: "2fa" });
    expect(page.text).not.toContain('name="password"');
    const params = responseParams(await passTotp(browser, page, "bob"));
    const tokens = await redeemCode(p, params.get("code")!, { code_verifier: undefined });
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({
      sub: "E10002",
      amr: ["password", "totp", "mfa"],
      acr: "2fa",
    });

    // The session now proves two factors: a 2fa request is answered without a page.
    const sso = responseParams(await browser.get(authorizeUrl(p.issuer, { acr_values: "2fa", prompt: "none" })));
    expect(sso.get("code")).toBeTruthy();
  });
});

describe("prompt=login over a one-factor session", () => {
  it("asks a two-factor request for both factors again, as a login without a session would", async () => {
    const browser = new RawBrowser();
    expect(responseParams(await loginWithPassword(browser, authorizeUrl(p.issuer), "erin", "erin-password")).get("code")).toBeTruthy();

    // Password first (fa), the class the session already has: it must be asked for again.
    const first = await open(browser, { login_type: "2FA", fa: "password/totp", prompt: "login" });
    expect(first.status, first.text.slice(0, 400)).toBe(200);
    expect(first.text).toContain('name="password"');
    const second = await submitPassword(browser, first, "erin", "erin-password");
    const params = responseParams(await passTotp(browser, second, "erin"));
    expect(params.get("login_type")).toBe("2FA");
    const tokens = await redeemCode(p, params.get("code")!, { code_verifier: undefined });
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({ amr: ["password", "totp", "mfa"], acr: "2fa" });
  });
});

describe("login_type MfaTotp", () => {
  it("runs only TOTP for the login_hint's user, leaves no SSO state, and needs login_type again at the token endpoint", async () => {
    const browser = new RawBrowser();
    const page = await open(browser, { login_type: "MfaTotp", login_hint: "carol" });
    const answer = await passTotp(browser, page, "carol");
    const params = responseParams(answer);
    expect(params.get("login_type")).toBe("MfaTotp");
    expect([...browser.cookies.keys()].filter((name) => name.includes("session"))).toEqual([]);

    // No session: a plain request shows the login page again.
    const again = await browser.get(authorizeUrl(p.issuer, { prompt: "none" }));
    expect(responseParams(again).get("error")).toBe("login_required");

    const without = await redeemCode(p, params.get("code")!, { code_verifier: undefined });
    expect(without.status).toBe(400);
    expect(without.json).toMatchObject({ error: "invalid_grant" });
  });

  it("issues tokens when the token request repeats login_type; amr is [totp], acr 1fa", async () => {
    const browser = new RawBrowser();
    const params = responseParams(await passTotp(browser, await open(browser, { login_type: "MfaTotp", login_hint: "dave" }), "dave"));
    const tokens = await redeemCode(p, params.get("code")!, { code_verifier: undefined, login_type: "MfaTotp" });
    expect(tokens.status).toBe(200);
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({
      sub: (await p.provider.policies.current().users.findByUsername("dave"))!.sub,
      amr: ["totp"],
      acr: "1fa",
    });
  });

  it("does not use an SSO session either: a signed-in browser still verifies", async () => {
    const browser = new RawBrowser();
    expect(responseParams(await loginWithPassword(browser, authorizeUrl(p.issuer))).get("code")).toBeTruthy();
    const page = await open(browser, { login_type: "MfaTotp", login_hint: "alice" });
    expect(page.status).toBe(200);
    expect(page.text).toContain('value="SUBMIT_CODE"');
  });

  it("needs login_hint", async () => {
    const params = responseParams(await new RawBrowser().get(authorizeUrl(p.issuer, { login_type: "MfaTotp" })));
    expect(params.get("error")).toBe("invalid_request");
    expect(params.get("error_description")).toMatch(/login_hint/);
  });
});

describe("acr_values req_chnl and chnl_info", () => {
  it("lets a user who administers several channels choose one; the ID token gets chnl, chnl_name and chnl_icon", async () => {
    const browser = new RawBrowser();
    const login = await loginWithPassword(browser, authorizeUrl(p.issuer, { acr_values: "req_chnl chnl_info" }));
    const chooser = await browser.follow(login);
    expect(chooser.status).toBe(200);
    for (const name of ["North Store", "South Store", "Online Shop"]) expect(chooser.text).toContain(name);
    const params = responseParams(await submitStep(browser, chooser, { event: "CHOOSE_CHANNEL", channel: "south-store" }));
    const tokens = await redeemCode(p, params.get("code")!, { code_verifier: undefined });
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({
      chnl: "south-store",
      chnl_name: "South Store",
      chnl_icon: "https://example.com/channels/south-store.png",
    });
  });

  it("names the channel with req_chnl:<id> for an administrator, over the SSO session", async () => {
    const browser = new RawBrowser();
    expect(responseParams(await loginWithPassword(browser, authorizeUrl(p.issuer))).get("code")).toBeTruthy();
    const params = responseParams(await browser.get(authorizeUrl(p.issuer, { acr_values: "req_chnl:north-store" })));
    const tokens = await redeemCode(p, params.get("code")!, { code_verifier: undefined });
    const claims = await verifyIdToken(p, tokens.json!.id_token as string);
    expect(claims.chnl).toBe("north-store");
    expect(claims.chnl_name).toBeUndefined();
  });

  it("refuses a user who is only a temporary member of the named channel: access_denied, no code", async () => {
    const browser = new RawBrowser();
    const params = responseParams(
      await loginWithPassword(browser, authorizeUrl(p.issuer, { acr_values: "req_chnl:north-store" }), "bob", "bob-password"),
    );
    expect(params.get("error")).toBe("access_denied");
    expect(params.get("code")).toBeNull();
  });
});

/** A JPEG as far as the face method checks without decoding: SOI, some bytes, EOI. */
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(500, 7), Buffer.from([0xff, 0xd9])]);

describe("a login type added in YAML only", () => {
  it("serves MfaFace: the face step for the login_hint's user, login_type at the token endpoint", async () => {
    const browser = new RawBrowser();
    const page = await open(browser, { login_type: "MfaFace", login_hint: "alice" });
    expect(page.status).toBe(200);
    expect(page.text).toContain('value="SUBMIT_FRAME"');
    expect(page.text).not.toContain('value="CHOOSE_METHOD"');
    // The demo's development face adapter passes any frame.
    const params = responseParams(
      await submitStep(browser, page, { event: "SUBMIT_FRAME", image: `data:image/jpeg;base64,${JPEG.toString("base64")}` }),
    );
    expect(params.get("login_type")).toBe("MfaFace");
    const tokens = await redeemCode(p, params.get("code")!, { code_verifier: undefined, login_type: "MfaFace" });
    expect(tokens.status).toBe(200);
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({ sub: "E10001", amr: ["face"], acr: "1fa" });
  });
});

/** A MyVendor link of demo-vendor for `extra.login_hint` (default the operator-enrolled account), signed with its key. */
function vendorUrl(extra: Record<string, string | undefined> = {}): string {
  const loginHint = extra.login_hint ?? VENDOR_ACCOUNT;
  const redirect = extra.redirect_uri ?? VENDOR.redirect;
  return authorizeUrl(p.issuer, {
    client_id: VENDOR.id,
    redirect_uri: redirect,
    login_type: "MyVendor",
    login_hint: loginHint,
    signature: vendorSignature(redirect, loginHint, VENDOR.key),
    ...extra,
  });
}

describe("login_type MyVendor", () => {
  it("verifies a signed link's vendor account with its TOTP: sub is the login_hint, no SSO, login_type at the token endpoint", async () => {
    const browser = new RawBrowser();
    const first = await browser.get(vendorUrl());
    expect(first.status, `${first.location} ${first.text.slice(0, 300)}`).toBe(303);
    const page = await browser.follow(first);
    const params = responseParams(await passTotp(browser, page, VENDOR_ACCOUNT));
    expect(params.get("login_type")).toBe("MyVendor");
    expect([...browser.cookies.keys()].filter((name) => name.includes("session"))).toEqual([]);
    const tokens = await redeemCode(
      p,
      params.get("code")!,
      { code_verifier: undefined, login_type: "MyVendor", redirect_uri: VENDOR.redirect },
      VENDOR,
    );
    expect(tokens.status).toBe(200);
    expect(await verifyIdToken(p, tokens.json!.id_token as string, VENDOR.id)).toMatchObject({
      sub: VENDOR_ACCOUNT,
      amr: ["totp"],
      acr: "1fa",
    });
  });

  it("shows an account nobody enrolled no secret but a page, in the login page's language, to ask the administrator (the demo enrolls on first use no more); trying again once enrolled asks for the code", async () => {
    const account = "demo-vendor:not-enrolled-yet";
    const browser = new RawBrowser();
    const page = await browser.follow(await browser.get(vendorUrl({ login_hint: account, lang: "jp" })));
    expect(page.status, page.text.slice(0, 400)).toBe(200);
    expect(page.text).toContain("このアカウントには認証アプリが設定されていません。管理者に設定を依頼してから、もう一度お試しください。");
    expect(page.text).not.toMatch(/otpauth|totp-secret|value="SUBMIT_CODE"/);
    expect(await p.provider.enrollments.get("totp", account)).toBeUndefined();

    // The operator enrolls it (portcullis methods enroll 'demo-vendor:not-enrolled-yet' totp); the same page's "try again".
    const totp = p.provider.methods.get("totp")!;
    secrets.set(account, new URL(await totp.plugin.enrollByOperator!(totp.context, account, {})).searchParams.get("secret")!);
    const retried = await browser.follow(await submitStep(browser, page, { event: "START_OVER" }));
    expect(responseParams(await passTotp(browser, retried, account)).get("login_type")).toBe("MyVendor");
  });

  it("refuses every kind of bad signature or login_hint with invalid_request at the redirect URI, before any page", async () => {
    const cases: Record<string, Record<string, string | undefined>> = {
      "no signature": { signature: undefined },
      "a signature by another key": { signature: vendorSignature(VENDOR.redirect, VENDOR_ACCOUNT, "not-the-key") },
      "a signature over another login_hint": { signature: vendorSignature(VENDOR.redirect, "demo-vendor:someone-else", VENDOR.key) },
      "a signature that is not hex SHA-1": { signature: "z".repeat(40) },
      "no login_hint": { login_hint: undefined, signature: vendorSignature(VENDOR.redirect, "", VENDOR.key) },
      "a login_hint without the client prefix": { login_hint: "acme-support" },
      "a login_hint naming another client": { login_hint: "demo-web:acme-support" },
    };
    for (const [name, extra] of Object.entries(cases)) {
      const url = new URL(vendorUrl(extra));
      if ("login_hint" in extra && extra.login_hint === undefined) url.searchParams.delete("login_hint");
      if ("signature" in extra && extra.signature === undefined) url.searchParams.delete("signature");
      const answer = await new RawBrowser().get(url.href);
      expect(answer.location?.startsWith(VENDOR.redirect), name).toBe(true);
      const params = responseParams(answer);
      expect(params.get("error"), name).toBe("invalid_request");
      expect(params.get("state"), name).toBe("st-1");
      expect(params.get("iss"), name).toBe(p.issuer);
    }
  });

  it("allows only openid profile (invalid_scope), and never sends an error to a redirect URI that is not registered", async () => {
    expect(responseParams(await new RawBrowser().get(vendorUrl({ scope: "openid profile email" }))).get("error")).toBe("invalid_scope");
    // Characters shifted from login_hint into redirect_uri keep the signed string: the URI is not registered, so a page, no redirect.
    const shifted = await new RawBrowser().get(vendorUrl({ redirect_uri: `${VENDOR.redirect}demo-vendor:`, login_hint: "acme-support" }));
    expect(shifted.status).toBe(400);
    expect(shifted.location).toBeUndefined();
  });
});

describe("whose login a second-factor page is", () => {
  /** The page's "Signing in as …" line as served (HTML-escaped text; a raw `<` would end the match early). */
  const accountLine = (page: Answer) => /<p class="signed-in-as login-account">([^<]*)<\/p>/.exec(page.text)?.[1];
  const mfa = (loginType: string, loginHint: string, lang: string) => () =>
    authorizeUrl(p.issuer, { login_type: loginType, login_hint: loginHint, lang });
  const vendor =
    (extra: Record<string, string> = {}) =>
    () =>
      vendorUrl(extra);

  it.each([
    ["an Mfa variant: the user name masked", mfa("MfaTotp", "alice", "en"), "Signing in as a•••e"],
    ["Mfa: an employee number masked, in Japanese", mfa("Mfa", "E10001", "jp"), "E1•••1 としてサインインしています"],
    ["Mfa: a short hint shows its first character only, in Vietnamese", mfa("MfaSms", "bob", "vn"), "Đang đăng nhập với tư cách b•••"],
    [
      "Mfa: markup in the hint stays text, in traditional Chinese",
      mfa("MfaFido", '<b id="x">hi</b>', "tw"),
      "正在以 &lt;b•••&gt; 的身分登入",
    ],
    [
      "Mfa: a hint that tries to talk to the user shows too little to say anything",
      mfa("MfaMail", "Your account is locked: call +1 555 0100", "en"),
      "Signing in as Yo•••0",
    ],
    ["MyVendor: the signed account as it is", vendor(), "Signing in as acme-support"],
    [
      "MyVendor: markup in the signed account stays text, in simplified Chinese",
      vendor({ login_hint: "demo-vendor:<img src=x onerror=alert(1)>", lang: "cn" }),
      "正在以 &lt;img src&#x3D;x onerror&#x3D;alert(1)&gt; 的身份登录",
    ],
  ])("%s", async (_label, url, shown) => {
    const browser = new RawBrowser();
    const page = await browser.follow(await browser.get(url()));
    expect(page.status, page.text.slice(0, 400)).toBe(200);
    expect(accountLine(page)).toBe(shown);
  });

  it("never shows what the directory knows of the hint's user", async () => {
    const page = await open(new RawBrowser(), { login_type: "MfaTotp", login_hint: "alice" });
    expect(accountLine(page)).toBe("Signing in as a•••e");
    expect(page.text).not.toContain("Alice Chen");
  });

  it("says nothing on a login whose login_hint only prefills the user name", async () => {
    const page = await open(new RawBrowser(), { login_hint: "alice" });
    expect(page.status).toBe(200);
    expect(accountLine(page)).toBeUndefined();
  });
});
