import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoLoginDataSeal } from "../../support/demo-login-data.ts";
import { RawBrowser } from "../../support/raw-browser.ts";
import type { Grant } from "../../support/stand-in-provider.ts";
import {
  answerApproval,
  approvalLink,
  openMobilePage,
  startDemoParties,
  submit,
  writesReach,
  type DemoParties,
} from "../sites/demo-parties.ts";

let p: DemoParties;
beforeAll(async () => {
  p = await startDemoParties();
});
afterAll(() => p?.close());

const SCOPE = "openid acme.ext.custom_scan";
const grantFor = (sub: string): Grant => ({
  sub,
  clientId: "demo-channel",
  redirectUri: `${p.channel.publicUrl}/channel/select`,
  scope: SCOPE,
});
const ALICE = "E10001";
const BOB = "E10002";

/** What a status write's data opens to with the demo's login_data key, for the user `sub`. */
const opened = (data: unknown, sub: string) => demoLoginDataSeal().open(String(data), sub);

/** The channel buttons the selector page offers. */
const offered = (html: string) => [...html.matchAll(/<button name="channel" value="([^"]+)">/g)].map((m) => m[1]);

async function select(sub: string, mobileState: string, browser = new RawBrowser()) {
  return { browser, page: await openMobilePage(p, browser, grantFor(sub), `scan-${sub}|${mobileState}`) };
}

describe("the channel selector page (the channel client's MobileRedirectUrl)", () => {
  it("offers the channels the MobileState rule allows: roleIdGt0 hides temporary accounts, roleIdGt1 keeps owners, none offers all", async () => {
    expect(offered((await select(BOB, "")).page.text)).toEqual(["north-store", "south-store"]);
    expect(offered((await select(BOB, "roleIdGt0")).page.text)).toEqual(["south-store"]);
    expect(offered((await select(BOB, "roleIdGt1")).page.text)).toEqual(["south-store"]);
    expect(offered((await select(ALICE, "roleIdGt0")).page.text)).toEqual(["north-store", "south-store", "online-shop"]);
    expect(offered((await select(ALICE, "roleIdGt1")).page.text)).toEqual(["north-store"]);
    expect(p.provider.writes).toEqual([]);
  });

  it("redirects to itself after redeeming the code, so the code leaves the address bar", async () => {
    const browser = new RawBrowser();
    const code = p.provider.issueCode(grantFor(ALICE));
    const first = await browser.get(`${p.channel.publicUrl}/channel/select?code=${code}&state=s|`);
    expect(first.status).toBe(303);
    expect(first.location).toBe(`${p.channel.publicUrl}/channel/select`);
  });

  it("signs an operator in at once: status 10 with the channel id sealed for the scanner, written with the page's own access token", async () => {
    const before = p.provider.writes.length;
    const { browser, page } = await select(ALICE, "roleIdGt0");
    const done = await submit(browser, page, { channel: "south-store" });
    expect(done.text).toContain("The PC is signing in with South Store.");
    expect(p.provider.writes.slice(before)).toEqual([
      {
        authorization: expect.stringMatching(/^Bearer ey/),
        body: { session_id: `scan-${ALICE}`, status: 10, data: expect.stringMatching(/^[\w-]+$/) },
      },
    ]);
    const { data } = p.provider.writes[before]!.body;
    expect(opened(data, ALICE)).toEqual({ ok: true, payload: "south-store" });
    // Bound to the scanner: the same data does not open for bob, who owns south-store.
    expect(opened(data, BOB)).toEqual({ ok: false, problem: "forged" });
  });

  it("asks the owner for a temporary account: 5 with the owner as auditor, a message with the approval link, and 10 with the sealed channel id once approved", async () => {
    const before = p.provider.writes.length;
    const { browser, page } = await select(BOB, "");
    const waiting = await submit(browser, page, { channel: "north-store" });
    expect(waiting.text).toContain(`Waiting for ${ALICE}'s approval`);
    expect(p.provider.writes.slice(before)).toEqual([
      expect.objectContaining({ body: { session_id: `scan-${BOB}`, status: 5, data: "north-store", auditor: ALICE } }),
    ]);

    const link = await approvalLink(p, ALICE);
    const approvalPage = await new RawBrowser().get(link);
    expect(approvalPage.text).toContain(`${BOB} asks to sign in on a PC: North Store (north-store), a temporary sign-in`);
    expect((await answerApproval(link, "approve")).text).toContain(`you approved the sign-in of ${BOB}`);
    await writesReach(p, before + 2);
    expect(p.provider.writes[before + 1]!.body).toMatchObject({ session_id: `scan-${BOB}`, status: 10 });
    expect(opened(p.provider.writes[before + 1]!.body.data, BOB)).toEqual({ ok: true, payload: "north-store" });
    expect(p.provider.writes[before + 1]!.authorization).toBe(p.provider.writes[before]!.authorization);
    expect((await browser.get(page.url)).text).toContain(`${ALICE} approved: the PC is signing in with North Store.`);
  });

  it("writes -10 when the owner refuses", async () => {
    const before = p.provider.writes.length;
    const { browser, page } = await select(BOB, "");
    await submit(browser, page, { channel: "north-store" });
    await answerApproval(await approvalLink(p, ALICE), "refuse");
    await writesReach(p, before + 2);
    expect(p.provider.writes[before + 1]!.body).toEqual({ session_id: `scan-${BOB}`, status: -10, data: "" });
    expect((await browser.get(page.url)).text).toContain(`${ALICE} refused: nobody is signed in on the PC.`);
  });

  it("writes -10 when the user refuses on the phone", async () => {
    const before = p.provider.writes.length;
    const { browser, page } = await select(ALICE, "");
    expect((await submit(browser, page, { refuse: "1" })).text).toContain("You refused: nobody is signed in on the PC.");
    expect(p.provider.writes.slice(before).map((w) => w.body)).toEqual([{ session_id: `scan-${ALICE}`, status: -10, data: "" }]);
  });

  it("refuses a channel the rule does not offer (a hand-made post), and writes nothing", async () => {
    const before = p.provider.writes.length;
    const { browser, page } = await select(BOB, "roleIdGt0");
    const refused = await submit(browser, page, { channel: "north-store" });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("Choose one of the channels offered.");
    expect(p.provider.writes.length).toBe(before);
  });

  it("refuses a post without the page's CSRF token (403) and writes nothing", async () => {
    const before = p.provider.writes.length;
    const { browser, page } = await select(ALICE, "");
    const forged = await browser.post(page.url, { channel: "north-store", csrf: "x".repeat(43) });
    expect(forged.status).toBe(403);
    expect((await browser.post(page.url, { channel: "north-store" })).status).toBe(403);
    expect(p.provider.writes.length).toBe(before);
  });

  it("answers a choice once: a second post is refused with 409", async () => {
    const { browser, page } = await select(ALICE, "");
    await submit(browser, page, { channel: "north-store" });
    const again = await browser.post(page.url, { csrf: /name="csrf" value="([^"]+)"/.exec(page.text)![1]!, channel: "north-store" });
    expect(again.status).toBe(409);
  });

  it("refuses an unknown MobileState rule instead of offering every channel, escaping it", async () => {
    const { page } = await select(BOB, "<b>roleIdGt9</b>");
    expect(page.status).toBe(400);
    expect(page.text).toContain("unknown channel rule (MobileState &quot;&lt;b&gt;roleIdGt9&lt;/b&gt;&quot;)");
    expect(page.text).not.toContain("<b>roleIdGt9");
  });

  it("shows an error response escaped, and a reused code as the provider's refusal", async () => {
    const browser = new RawBrowser();
    const error = await browser.get(
      `${p.channel.publicUrl}/channel/select?error=access_denied&error_description=${encodeURIComponent("<img src=x>")}&state=s|`,
    );
    expect(error.status).toBe(400);
    expect(error.text).toContain("The sign-in was refused: access_denied (&lt;img src=x&gt;).");
    const code = p.provider.issueCode(grantFor(ALICE));
    await browser.get(`${p.channel.publicUrl}/channel/select?code=${code}&state=s|`);
    const reused = await browser.get(`${p.channel.publicUrl}/channel/select?code=${code}&state=s|`);
    expect(reused.status).toBe(400);
    expect(reused.text).toContain("The sign-in could not be completed: the code is unknown, used, or not this client&#39;s");
  });

  it("refuses an answer from another issuer (RFC 9207) without redeeming its code", async () => {
    const code = p.provider.issueCode(grantFor(ALICE));
    const page = await new RawBrowser().get(
      `${p.channel.publicUrl}/channel/select?code=${code}&state=s|&iss=${encodeURIComponent("https://evil.example")}`,
    );
    expect(page.status).toBe(400);
    expect(page.text).toContain("This answer comes from another identity provider.");
  });
});
