import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { vendorSignature } from "../../src/login-policy/vendor-signature.ts";
import { copyConfig } from "../support/test-provider.ts";
import { portcullis } from "../support/run-cli.ts";

/**
 * `portcullis policy explain` as an operator runs it: a real process on a copy of the demo config,
 * with demo-web given a signing key (for MyVendor) and the YAML-only login type MfaFace of
 * docs/login-policy.md, and the embedded store in a private data directory for --user.
 */
const dataDir = mkdtempSync(join(tmpdir(), "portcullis-data-"));
const SIGNING_KEY = "vendor-signing-key-0123456789";
const configDir = copyConfig({
  "provider.yaml": { data_dir: dataDir, "store.url": "embedded", "listen.port": 0 },
  "clients.yaml": { "clients.0.signing_key": "${env:VENDOR_SIGNING_KEY}" },
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
});
afterAll(() => {
  rmSync(configDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

const env = { VENDOR_SIGNING_KEY: SIGNING_KEY };
const REDIRECT = "http://localhost:3001/callback";
const authorize = (params: Record<string, string>) =>
  `http://localhost:3000/connect/authorize?${new URLSearchParams({ client_id: "demo-web", redirect_uri: REDIRECT, response_type: "code", scope: "openid profile", state: "s1", ...params })}`;
const explain = (url: string, ...options: string[]) => portcullis(["policy", "explain", url, "--config", configDir, ...options], { env });

// Each case starts the real CLI (a process with the TypeScript loader each): minutes on a busy machine.
describe("portcullis policy explain", { timeout: 180_000 }, () => {
  it("explains a 2FA request: the methods fa chose in its order with their class, SSO, and amr/acr in both tokens", async () => {
    const result = await explain(authorize({ login_type: "2FA", fa: "totp/password" }));
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      [
        `accepted: client demo-web, redirect_uri ${REDIRECT}`,
        "login type: 2FA (returned to redirect_uri with the code)",
        "flow: two_factor (one trusted and one untrusted method)",
        "methods offered, in order:",
        "  1. totp      untrusted  amr totp",
        "  2. password  trusted    amr password",
      ].join("\n"),
    );
    expect(result.stdout).toContain("SSO: an existing session is used");
    expect(result.stdout).toContain("token request: need not send login_type\n");
    expect(result.stdout).toContain(
      "  amr (ID token and access token): [password, totp, mfa] (in the order passed)\n  acr (ID token and access token): 2fa\n",
    );
  });

  it("refuses a Mfa request without login_hint at the redirect URI, and exits 1", async () => {
    const result = await explain(authorize({ login_type: "Mfa" }));
    expect(result).toMatchObject({ code: 1, stderr: "" });
    expect(result.stdout).toBe(
      [
        "refused: invalid_request",
        "description: login_type Mfa needs login_hint",
        `shown as: sent to ${REDIRECT} (response_mode query) as error and error_description, with state and iss`,
        "",
      ].join("\n"),
    );
  });

  it("shows an unregistered redirect_uri as an error page, never a redirect", async () => {
    const result = await explain(authorize({ redirect_uri: "https://attacker.example/cb" }));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      "refused: invalid_request\ndescription: redirect_uri is not registered for this client\nshown as: an error page in the browser (the client or redirect_uri cannot be trusted, so nothing goes to a redirect URI)\n",
    );
  });

  it("checks the MyVendor signature before anything is shown, with the client's key from its ${env:} reference", async () => {
    const loginHint = "demo-web:acct-7";
    const good = authorize({ login_type: "MyVendor", login_hint: loginHint, signature: vendorSignature(REDIRECT, loginHint, SIGNING_KEY) });
    const accepted = await explain(good, "--json");
    expect(accepted.code).toBe(0);
    const json = JSON.parse(accepted.stdout);
    expect(json).toMatchObject({
      accepted: true,
      plan: {
        flow: "second_factor",
        loginHint: "vendor",
        vendorAccount: loginHint,
        sso: { use: false, create: false },
        repeatLoginTypeAtToken: true,
        enrollOnFirstUse: false,
      },
      tokens: { sub: loginHint, acr: "1fa", loginTypeWithCode: "MyVendor" },
    });
    expect(json.checks).toContain(
      "signature: valid (SHA-1 of redirect_uri + login_hint + the client's signing key, compared in constant time)",
    );

    const bad = await explain(
      authorize({
        login_type: "MyVendor",
        login_hint: loginHint,
        signature: vendorSignature(REDIRECT, loginHint, "another-key-0123456789"),
      }),
      "--json",
    );
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toEqual({
      accepted: false,
      error: "invalid_request",
      description: "signature does not match redirect_uri and login_hint for this client",
      shownAs: "redirect",
      redirectUri: REDIRECT,
      responseMode: "query",
      state: "s1",
    });

    const scope = await explain(
      authorize({
        login_type: "MyVendor",
        login_hint: loginHint,
        scope: "openid profile email",
        signature: vendorSignature(REDIRECT, loginHint, SIGNING_KEY),
      }),
    );
    expect(scope.code).toBe(1);
    expect(scope.stdout).toMatch(/^refused: invalid_scope\ndescription: login_type MyVendor allows only the scopes openid profile\n/);
  });

  it("plans the login type MfaFace that was added with YAML only", async () => {
    const result = await explain(authorize({ login_type: "MfaFace", login_hint: "alice" }));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("login type: MfaFace (returned to redirect_uri with the code)\nflow: second_factor");
    expect(result.stdout).toContain("methods offered, in order:\n  1. face  untrusted  amr face\n");
    expect(result.stdout).toContain("SSO: none: no SSO session is read, created or changed\n");
    expect(result.stdout).toContain("token request: must send login_type=MfaFace again (else invalid_grant)\n");
  });

  it("reads the endpoint from the URL's path: /eID/authorize selects the eID login type, as login_type=eID does at /connect/authorize", async () => {
    const eid = await explain(authorize({}).replace("/connect/authorize", "/eID/authorize"));
    expect(eid.code).toBe(0);
    expect(eid.stdout).toContain(
      "login type: eID (returned to redirect_uri with the code)\nflow: eid (brokered to the upstream eID identity provider): dev-eid\n",
    );
    expect(eid.stdout).toContain("token request: must send login_type=eID again (else invalid_grant)\n");
    expect(eid.stdout).toContain(
      "  amr (ID token and access token): [eid]\n  acr (ID token and access token): what the upstream eID provider performed",
    );
    expect(eid.stdout).not.toContain("asks the upstream to perform");
    // acr_values 2fa is set aside for this provider's own login (it selects login type 2FA), and forwarded upstream.
    const stepUp = await explain(authorize({ acr_values: "2fa" }).replace("/connect/authorize", "/eID/authorize"));
    expect(stepUp.code).toBe(0);
    expect(stepUp.stdout).toContain("asks the upstream to perform: 2fa (sent as the upstream's acr_values its acr.forward maps them to)");
    const standard = await explain(authorize({ login_type: "eID" }));
    expect(standard.code).toBe(0);
    expect(standard.stdout).toContain(
      "login type: eID (returned to redirect_uri with the code)\nflow: eid (brokered to the upstream eID identity provider): dev-eid\n",
    );
    const other = await explain(authorize({ login_type: "2FA" }).replace("/connect/authorize", "/eID/authorize"));
    expect(other.code).toBe(1);
    expect(other.stdout).toContain("description: /eID/authorize serves login_type eID only\n");
  });

  it("names the acr_values claims both tokens get, and refuses a contradiction", async () => {
    const claims = await explain(authorize({ acr_values: "req_chnl:ch-1 chnl_info app_gps app_faceid" }));
    expect(claims.code).toBe(0);
    expect(claims.stdout).toContain(
      [
        "  chnl (ID token and access token): ch-1",
        "  chnl_name (ID token and access token): the channel's name",
        "  chnl_icon (ID token and access token): the channel's icon URL",
        "  gps (ID token and access token): {lat, lnt, time} from the trusted app's signed assertion",
        "  faceid (ID token and access token): {result, key, time} from the trusted app's face check",
      ].join("\n"),
    );
    const contradiction = await explain(authorize({ acr_values: "must_bfido", login_type: "2FA" }));
    expect(contradiction.code).toBe(0);
    expect(contradiction.stdout).toContain("login type: 2FA");
    expect(contradiction.stdout).toContain(
      "  must_bfido: matched must_bfido, set aside: decides the verification itself: not beside login_type or fa\n",
    );
    // A value the named login type cannot serve (app_gps needs the trusted app's scan, MfaTotp offers TOTP alone) is a preference set aside too.
    const unserved = await explain(authorize({ acr_values: "app_gps", login_type: "MfaTotp", login_hint: "alice" }));
    expect(unserved.code).toBe(0);
    expect(unserved.stdout).toContain("login type: MfaTotp");
    expect(unserved.stdout).toContain(
      "  app_gps: matched app_gps, set aside: requires qrcode: the login type the request names offers none of qrcode\n",
    );
    expect(unserved.stdout).not.toContain("gps (ID token");
  });

  it("shows which login.yaml acr_values declaration each value matched, case aside, and which it ignored", async () => {
    const result = await explain(authorize({ acr_values: "2FA:totp urn:example:gold must_bfido_x" }));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "login type: 2FA (selected by acr_values; no login_type goes back to redirect_uri)\nflow: two_factor (one trusted and one untrusted method)\n",
    );
    expect(result.stdout).toContain(
      [
        "acr_values (login.yaml acr_values):",
        "  2FA:totp: matched 2fa. Two-factor login, as login_type=2FA; 2fa:<methods> chooses the methods, as fa does. Requires: login type 2FA; 2fa:<methods> chooses the methods",
        "  urn:example:gold: not declared: voluntary, ignored",
        "  must_bfido_x: not declared: voluntary, ignored",
      ].join("\n"),
    );
    const json = JSON.parse((await explain(authorize({ acr_values: "req_chnl:ch-1" }), "--json")).stdout) as { acrValues: unknown };
    expect(json.acrValues).toEqual([
      {
        sent: "req_chnl:ch-1",
        declared: "req_chnl",
        description: expect.any(String),
        requires: ["the channel check (req_chnl:<channel_id>: that channel)", "claims chnl"],
      },
    ]);
  });

  it("--user says which offered methods the user has set up and whether the login could succeed", async () => {
    const url = authorize({ acr_values: "2fa" });
    const before = await explain(url, "--user", "alice");
    expect(before.code).toBe(0);
    expect(before.stdout).toContain("user alice (sub E10001):\n");
    expect(before.stdout).toMatch(/^ {2}password {3}set up$/m);
    expect(before.stdout).toMatch(/^ {2}totp {7}not set up$/m);
    expect(before.stdout).toContain("  could log in: no — no untrusted method among the offered ones is set up\n");

    const enrolled = await portcullis(["methods", "enroll", "alice", "totp", "--config", configDir], { env });
    expect(enrolled.code).toBe(0);
    const after = await explain(url, "--user", "alice");
    expect(after.stdout).toMatch(/^ {2}totp {7}set up$/m);
    expect(after.stdout).toContain("  could log in: yes — a method of each class is set up\n");

    const stranger = await explain(url, "--user", "mallory");
    expect(stranger.stdout).toContain("user mallory: not found\n  could log in: no — no such user in the directory\n");
  });

  it("answers usage mistakes with exit 2", async () => {
    const missing = await portcullis(["policy", "explain"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("portcullis policy: expected policy explain '<authorize URL>'");
    const path = await explain("http://localhost:3000/connect/token?client_id=demo-web");
    expect(path.code).toBe(2);
    expect(path.stderr).toMatch(/^portcullis policy: the URL's path "\/connect\/token" is none of \/connect\/authorize/);
  });

  it("asks for the pushed parameters when the URL names a pushed request (the server keeps those, for one use)", async () => {
    const pushed = await explain(
      "http://localhost:3000/connect/authorize?client_id=demo-web&request_uri=urn:ietf:params:oauth:request_uri:abc",
    );
    expect(pushed.code).toBe(2);
    expect(pushed.stderr).toContain("explain the parameters the client pushed");
  });
});
