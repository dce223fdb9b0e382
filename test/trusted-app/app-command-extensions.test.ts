import { pluginServices } from "../../src/infra/live-services.ts";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BfidoLogins } from "../../flows/methods/bfido/bfido-logins.ts";
import { relyingParty, type FidoSettings } from "../../flows/methods/fido/fido-settings.ts";
import type { PluginContext } from "../../src/plugin-contract/factor-plugin.ts";
import { appEntryUrl } from "../../src/trusted-app/acmeauth-sso.ts";
import { trustedApp } from "../../src/trusted-app/trusted-app.ts";
import { authorizeUrl } from "../support/browser-login.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { redeemCode, verifyIdToken, WEB_REDIRECT } from "../support/code-grant.ts";
import { portcullis } from "../support/run-cli.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { operatorEnrollUri } from "./trusted-app-support.ts";

/**
 * `portcullis app` beyond the QR scan: the acmeauth://sso/oidc entry (a code redirect for an enrolled
 * device), the sensors of acr_values app_gps / app_faceid (--gps, --faceid), and the FIDO2 credential
 * of must_bfido (bfido-register, bfido-scan). Each runs the real CLI against a provider on loopback.
 */
let p: TestProvider;
const dir = mkdtempSync(join(tmpdir(), "portcullis-app-"));
const device = join(dir, "phone.json");
const app = (...args: string[]) => portcullis(["app", ...args], { env: { PORTCULLIS_APP_DEVICE: device } });
beforeAll(async () => {
  p = await startTestProvider();
  expect(await app("enroll", await operatorEnrollUri(p, "E10001"), "--name", "Alice's CLI")).toMatchObject({ code: 0 });
});
afterAll(async () => {
  await p.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A login QR wanting the app's evidence, as the qrcode method makes one for app_gps + app_faceid. */
async function evidenceQr(): Promise<{ challengeId: string; uri: string }> {
  const challenges = trustedApp(pluginServices(p.provider)).challenges;
  const { challengeId } = await challenges.create(60_000, { gps: true, faceid: true });
  const view = await challenges.view(challengeId);
  return { challengeId, uri: (view as { uri: string }).uri };
}

describe("portcullis app sso", () => {
  it("performs an acmeauth://sso/oidc entry with the device's token and prints the code redirect", async () => {
    const entry = appEntryUrl(Object.fromEntries(new URL(authorizeUrl(p.issuer, { state: "from-the-app" })).searchParams));
    const done = await app("sso", entry);
    expect(done.stderr).toBe("");
    expect(done.code).toBe(0);
    const redirect = new URL(done.stdout.trim());
    expect(`${redirect.origin}${redirect.pathname}`).toBe(WEB_REDIRECT);
    expect(redirect.searchParams.get("state")).toBe("from-the-app");
    expect(redirect.searchParams.get("iss")).toBe(p.issuer);
    const tokens = await redeemCode(p, redirect.searchParams.get("code")!, { code_verifier: undefined });
    expect(tokens.status, tokens.text).toBe(200);
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({ sub: "E10001", amr: ["qrcode"] });
  });

  it('performs the "Open in the trusted app" link of a login page (shown on phones only)', async () => {
    const browser = new RawBrowser();
    const page = await browser.follow(await browser.get(authorizeUrl(p.issuer, { state: "from-the-page", login_hint: "alice" })));
    const link =
      /<p class="app-entry"><a class="button secondary" href="(acmeauth:\/\/sso\/oidc\?[^"]+)">Open in the trusted app<\/a><\/p>/.exec(
        page.text,
      );
    expect(link, page.text.slice(0, 3000)).toBeTruthy();
    // What the browser reads from the attribute (Handlebars escapes = and &).
    const entry = link![1]!.replaceAll("&#x3D;", "=").replaceAll("&amp;", "&");
    expect(Object.fromEntries(new URL(entry).searchParams)).toMatchObject({
      client_id: "demo-web",
      state: "from-the-page",
      login_hint: "alice",
      response_type: "code",
    });
    const css = await (await fetch(`${p.url}/assets/portcullis.css`)).text();
    expect(css).toContain(".app-entry { display: none;");
    expect(css).toMatch(/@media \(pointer: coarse\) and \(max-width: 40rem\) \{\n {2}\.app-entry \{ display: block; \}/);
    const done = await app("sso", entry);
    expect(done.code, done.stderr).toBe(0);
    expect(new URL(done.stdout.trim()).searchParams.get("state")).toBe("from-the-page");
  });

  it("says why the provider refused an entry it could not redirect (a redirect_uri the client did not register)", async () => {
    const entry = appEntryUrl(
      Object.fromEntries(new URL(authorizeUrl(p.issuer, { redirect_uri: "https://attacker.example/cb" })).searchParams),
    );
    const done = await app("sso", entry);
    expect(done.code).toBe(1);
    expect(done.stdout).toBe("");
    expect(done.stderr).toBe(
      "portcullis app: the provider answered 400 without a redirect: redirect_uri is not registered for this client\n",
    );
  });

  it("refuses a link that is not an app entry", async () => {
    expect(await app("sso", "https://example.com/connect/authorize?client_id=demo-web")).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/not an acmeauth:\/\/sso\/oidc link/),
    });
  });
});

describe("portcullis app scan --gps --faceid", () => {
  it("signs the location and the face check the QR code asks for into the scan", async () => {
    const { challengeId, uri } = await evidenceQr();
    expect(await app("scan", uri, "--gps", "25.03,121.56", "--faceid", "pass")).toMatchObject({ code: 0, stderr: "" });
    expect(await trustedApp(pluginServices(p.provider)).challenges.view(challengeId)).toMatchObject({ state: "scanned" });
  });

  it("passes the provider's refusal on when the phone has no location, or the face check failed", async () => {
    const refused = await app("scan", (await evidenceQr()).uri, "--faceid", "pass");
    expect(refused).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("the provider refused: access_denied: the location (gps) is required"),
    });
    const failed = await app("scan", (await evidenceQr()).uri, "--gps", "25.03,121.56", "--faceid", "fail");
    expect(failed.stderr).toContain("access_denied: face recognition did not pass");
    expect(await app("scan", (await evidenceQr()).uri, "--gps", "north")).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("--gps is LAT,LNT"),
    });
  });
});

describe("portcullis app bfido-register / bfido-scan", () => {
  it("registers the app's FIDO2 credential and answers a must_bfido QR code with it", async () => {
    expect(await app("bfido-register")).toMatchObject({
      code: 0,
      stdout: "registered a FIDO2 credential of this app for E10001 (must_bfido sign-ins)\n",
    });
    const bfido = p.provider.methods.get("bfido")!;
    const context = bfido.context as unknown as PluginContext<FidoSettings>;
    const logins = new BfidoLogins(context, relyingParty(context.settings, p.issuer));
    const { loginId } = await logins.create();
    const { uri } = (await logins.view(loginId)) as { uri: string };
    expect(await app("bfido-scan", uri)).toMatchObject({ code: 0, stdout: "verified: the sign-in page continues\n" });
    expect(await logins.consumeVerified(loginId)).toBe("E10001");
    // The counter the app keeps moved with the assertion.
    expect((JSON.parse(readFileSync(device, "utf8")) as { fido: { signCount: number }[] }).fido[0]!.signCount).toBe(1);
  });
});
