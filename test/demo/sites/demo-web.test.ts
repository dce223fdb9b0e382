import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RawBrowser } from "../../support/raw-browser.ts";
import { send } from "../../support/test-provider.ts";
import { answerApproval, approvalLink, openMobilePage, startDemoParties, submit, writesReach, type DemoParties } from "./demo-parties.ts";

let p: DemoParties;
beforeAll(async () => {
  p = await startDemoParties();
});
afterAll(() => p?.close());

/** The page's script sources, unescaped. */
const scripts = (html: string) => [...html.matchAll(/<script src="([^"]+)">/g)].map((m) => m[1]!.replaceAll("&amp;", "&"));

describe("demo-web's custom login pages", () => {
  it("/custom-login loads the site's jQuery 4, then LoginJs with demo-web's parameters, then new AcmeSSO('#qr') under a nonce", async () => {
    const page = await send(`${p.sites.demoWebUrl}/custom-login`);
    const [jquery, loginJs] = scripts(page.text);
    expect(jquery).toBe("/assets/jquery-4.js");
    const url = new URL(loginJs!);
    expect(url.origin + url.pathname).toBe(`${p.provider.issuer}/Acme/CustomLogin/LoginJs`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      clientId: "demo-web",
      MobileRedirectUrl: `${p.sites.demoWebUrl}/custom-login/mobile`,
      MobileScope: "openid acme.ext.custom_scan channel.login.scan",
      MobileState: "jquery-4",
      PCRedirectUrl: `${p.sites.demoWebUrl}/custom-login/pc`,
      PCState: expect.stringMatching(/^jquery-4\.[\w-]{8}$/),
    });
    const nonce = /<script nonce="([^"]+)">[^<]*new AcmeSSO\('#qr'\)/.exec(page.text)?.[1];
    expect(page.headers.get("content-security-policy")).toContain(`script-src 'self' 'nonce-${nonce}' ${p.provider.issuer}`);
    expect(page.headers.get("content-security-policy")).toContain(`form-action 'self' ${p.provider.issuer}`);

    const lib = await send(`${p.sites.demoWebUrl}${jquery}`);
    expect(lib.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(lib.text).toContain("jQuery JavaScript Library v4.");
  });

  it("/custom-login/legacy loads jQuery 1.7", async () => {
    const page = await send(`${p.sites.demoWebUrl}/custom-login/legacy`);
    const [jquery, loginJs] = scripts(page.text);
    expect(jquery).toBe("/assets/jquery-1.7.js");
    expect(new URL(loginJs!).searchParams.get("MobileState")).toBe("jquery-1.7");
    expect((await send(`${p.sites.demoWebUrl}${jquery}`)).text).toContain("jQuery JavaScript Library v1.7.2");
  });
});

describe("the PC page (PCRedirectUrl)", () => {
  const pcGrant = (customScan?: { st: string; aud: string; lt: string; et: string }) => ({
    sub: "E10002",
    clientId: "demo-web",
    redirectUri: `${p.sites.demoWebUrl}/custom-login/pc`,
    scope: "openid profile acme",
    ...(customScan && { customScan }),
  });

  it("splits state at the last |: the data with its own bars before it, PCState (free of bars) byte for byte after it", async () => {
    const code = p.provider.issueCode(pcGrant({ st: "1700000000", aud: "E10001", lt: "1700000005", et: "1700000009" }));
    const state = "chan-1|a||b %7C~|jquery-4.x~";
    const page = await send(`${p.sites.demoWebUrl}/custom-login/pc?${new URLSearchParams({ code, state, iss: p.provider.issuer })}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("<dt>sub</dt><dd>E10002</dd><dt>data (before the last |)</dt><dd>chan-1|a||b %7C~</dd>");
    expect(page.text).toContain("<dt>PCState (after the last |)</dt><dd>jquery-4.x~</dd>");
    expect(page.text).toContain("<dt>aud (auditor)</dt><dd>E10001</dd>");
    expect(page.text).toContain("<dd>1700000009 (2023-11-14T22:13:29.000Z)</dd>");
  });

  it("escapes every value it shows: the data, PCState and userinfo", async () => {
    const code = p.provider.issueCode(pcGrant());
    const page = await send(`${p.sites.demoWebUrl}/custom-login/pc?${new URLSearchParams({ code, state: "<img src=x>|<svg onload=1>" })}`);
    expect(page.text).toContain("<dd>&lt;img src=x&gt;</dd>");
    expect(page.text).toContain("<dd>&lt;svg onload=1&gt;</dd>");
    expect(page.text).toContain("<dt>name</dt><dd>&lt;b&gt;Stand-in&lt;/b&gt;</dd>");
    expect(page.text).toContain("The ID token has no readable custom_scan claim.");
    expect(page.text).not.toMatch(/<img|<svg|<b>/);
  });
});

describe("the mobile page (MobileRedirectUrl): the custom operation", () => {
  const SCOPE = "openid acme.ext.custom_scan channel.login.scan";
  const open = (browser: RawBrowser, scan: string) =>
    openMobilePage(
      p,
      browser,
      { sub: "E10002", clientId: "demo-web", redirectUri: `${p.sites.demoWebUrl}/custom-login/mobile`, scope: SCOPE },
      `${scan}|jquery-4`,
    );

  it("Confirm writes 10 with the data as typed", async () => {
    const browser = new RawBrowser();
    const page = await open(browser, "scan-confirm");
    expect(page.text).toContain("Sign in on the PC as E10002 (MobileState jquery-4)?");
    const before = p.provider.writes.length;
    const done = await submit(browser, page, { action: "confirm", data: "order 7 | 'quoted' <x>", auditor: "" });
    expect(done.text).toContain("The PC is signing in as E10002.");
    expect(p.provider.writes.slice(before).map((w) => w.body)).toEqual([
      { session_id: "scan-confirm", status: 10, data: "order 7 | 'quoted' <x>" },
    ]);
  });

  it("Ask a manager writes 5 with the auditor, sends the approval link, and writes 10 with the data once the manager approves", async () => {
    const browser = new RawBrowser();
    const page = await open(browser, "scan-ask");
    const before = p.provider.writes.length;
    const waiting = await submit(browser, page, { action: "ask", data: "d-1", auditor: "E10001" });
    expect(waiting.text).toContain("Waiting for E10001's approval");
    expect(p.provider.writes.slice(before).map((w) => w.body)).toEqual([
      { session_id: "scan-ask", status: 5, data: "", auditor: "E10001" },
    ]);
    const link = await approvalLink(p, "E10001");
    expect((await new RawBrowser().get(link)).text).toContain("E10002 asks to sign in on a PC: the demo third-party site (demo-web)");
    await answerApproval(link, "approve");
    await writesReach(p, before + 2);
    expect(p.provider.writes[before + 1]!.body).toEqual({ session_id: "scan-ask", status: 10, data: "d-1" });
    expect((await browser.get(page.url)).text).toContain("E10001 approved: the PC is signing in as E10002.");
  });

  it("writes -10 when the manager refuses, and when the user refuses", async () => {
    const asking = new RawBrowser();
    const before = p.provider.writes.length;
    await submit(asking, await open(asking, "scan-no"), { action: "ask", data: "", auditor: "E10001" });
    await answerApproval(await approvalLink(p, "E10001"), "refuse");
    await writesReach(p, before + 2);
    expect(p.provider.writes[before + 1]!.body).toEqual({ session_id: "scan-no", status: -10, data: "" });

    const refusing = new RawBrowser();
    expect((await submit(refusing, await open(refusing, "scan-refuse"), { action: "refuse", data: "", auditor: "" })).text).toContain(
      "You refused",
    );
    expect(p.provider.writes.at(-1)!.body).toEqual({ session_id: "scan-refuse", status: -10, data: "" });
  });

  it("shows the provider's refusal of a write instead of claiming success", async () => {
    const browser = new RawBrowser();
    const page = await open(browser, "scan-expired");
    p.provider.writeAnswers.push({ http: 400, status: 400, message: "the scan session has expired" });
    const done = await submit(browser, page, { action: "confirm", data: "", auditor: "" });
    expect(done.text).toContain("The identity provider refused (400): the scan session has expired");
  });

  it("refuses a post without the CSRF token and asking without an auditor, writing nothing", async () => {
    const browser = new RawBrowser();
    const page = await open(browser, "scan-csrf");
    const before = p.provider.writes.length;
    expect((await browser.post(page.url, { action: "confirm", data: "" })).status).toBe(403);
    const noAuditor = await submit(browser, page, { action: "ask", data: "", auditor: " " });
    expect(noAuditor.status).toBe(400);
    expect(noAuditor.text).toContain("Enter the account of the manager to ask.");
    expect(p.provider.writes.length).toBe(before);
  });
});
