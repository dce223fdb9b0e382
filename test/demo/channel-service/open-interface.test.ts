import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RawBrowser } from "../../support/raw-browser.ts";
import { send } from "../../support/test-provider.ts";
import { answerApproval, startDemoParties, submit, type DemoParties } from "../sites/demo-parties.ts";

let p: DemoParties;
let bobToken: string;
beforeAll(async () => {
  p = await startDemoParties();
  bobToken = await p.provider.accessToken({ sub: "E10002", clientId: "demo-web", scope: "openid acme.ext.custom_scan channel.login.scan" });
});
afterAll(() => p?.close());

const call = (path: string, token: string | undefined, body?: Record<string, string>) =>
  send(`${p.channel.url}${path}`, {
    method: body ? "POST" : "GET",
    headers: { ...(token && { authorization: `Bearer ${token}` }), ...(body && { "content-type": "application/json" }) },
    ...(body && { body: JSON.stringify(body) }),
  });

describe("POST /SendMsg", () => {
  it("refuses a call without a Bearer token with 401 and stores nothing", async () => {
    const res = await call("/SendMsg", undefined, { to: "nobody-1", text: "hello" });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ code: 401, msg: "a Bearer access token is required" });
    expect((await send(`${p.channel.url}/messages?to=nobody-1`)).text).toContain("No messages.");
  });

  it("refuses a token of the provider without a channel scope with 403", async () => {
    const token = await p.provider.accessToken({ sub: "E10002", clientId: "demo-web", scope: "openid acme" });
    const res = await call("/SendMsg", token, { to: "nobody-2", text: "hello" });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ code: 403, msg: "the access token lacks one of the scopes channel.login.scan, channel.directory" });
  });

  it("stores the message for the addressee, whose inbox shows it escaped, with its approval link", async () => {
    const res = await call("/SendMsg", bobToken, {
      to: "carol",
      text: "<script>alert(1)</script> & more",
      approve_url: "http://localhost:4100/approvals/abc",
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ code: 200, msg: "OK", data: { id: expect.stringMatching(/^[\w-]{22}$/) } });
    const inbox = await send(`${p.channel.url}/messages?to=carol`);
    expect(inbox.text).toContain("<strong>E10002</strong>");
    expect(inbox.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp; more");
    expect(inbox.text).not.toContain("<script>");
    expect(inbox.text).toContain('<a href="http://localhost:4100/approvals/abc">');
  });

  it("takes a form body too", async () => {
    const res = await send(`${p.channel.url}/SendMsg`, {
      method: "POST",
      headers: { authorization: `Bearer ${bobToken}`, "content-type": "application/x-www-form-urlencoded" },
      body: "to=dave&text=hi",
    });
    expect(res.json).toMatchObject({ code: 200, msg: "OK" });
    expect((await send(`${p.channel.url}/messages?to=dave`)).text).toContain("hi");
  });

  it("refuses a JSON body with a member twice with 400 and stores nothing", async () => {
    // JSON.parse keeps the last `to`; a proxy or an auditor reading the first sees another addressee.
    const res = await send(`${p.channel.url}/SendMsg`, {
      method: "POST",
      headers: { authorization: `Bearer ${bobToken}`, "content-type": "application/json" },
      body: '{"to":"erin","text":"hi erin","to":"frank"}',
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ code: 400, msg: "the body has the member 'to' twice in one object" });
    for (const to of ["erin", "frank"]) expect((await send(`${p.channel.url}/messages?to=${to}`)).text).toContain("No messages.");
  });

  it("refuses a message without text, and a link that is not http(s), with 400", async () => {
    expect((await call("/SendMsg", bobToken, { to: "carol" })).json).toEqual({
      code: 400,
      msg: "text is required (at most 2000 characters)",
    });
    const res = await call("/SendMsg", bobToken, { to: "carol", text: "x", approve_url: "javascript:alert(1)" });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ code: 400, msg: "approve_url must be an http(s) URL" });
  });
});

describe("approval requests and the approval page", () => {
  const request = async (to: string, text: string) =>
    (await call("/approvals", bobToken, { to, text })).json!.data as { id: string; url: string };

  it("shows the request escaped, and once it is answered, the answer without a form", async () => {
    const { id, url } = await request("E10001", "<i>North</i> Store");
    expect(url).toBe(`${p.channel.publicUrl}/approvals/${id}`);
    const page = await send(url);
    expect(page.text).toContain("E10002 asks to sign in on a PC: &lt;i&gt;North&lt;/i&gt; Store");
    expect((await call(`/approvals/${id}/decision`, bobToken)).json).toEqual({ code: 200, msg: "OK", data: { id, decision: "pending" } });

    expect((await answerApproval(url, "approve")).status).toBe(200);
    const again = await send(url);
    expect(again.text).toContain("This request of E10002 was already answered: approved.");
    expect(again.text).not.toContain("<form");
    expect((await call(`/approvals/${id}/decision`, bobToken)).json!.data).toEqual({ id, decision: "approved" });
  });

  it("refuses a second POST of an open page once the request is answered (409)", async () => {
    const { id, url } = await request("E10001", "twice");
    const first = new RawBrowser();
    const second = new RawBrowser();
    const [pageA, pageB] = [await first.get(url), await second.get(url)];
    expect((await submit(first, pageA, { decision: "refuse" })).text).toContain("you refused the sign-in of E10002");
    const late = await submit(second, pageB, { decision: "approve" });
    expect(late.status).toBe(409);
    expect(late.text).toContain("was already answered: refused");
    expect((await call(`/approvals/${id}/decision`, bobToken)).json!.data).toEqual({ id, decision: "refused" });
  });

  it("keeps the forms of two approval pages open in one browser valid", async () => {
    const [one, two] = [await request("E10001", "one"), await request("E10001", "two")];
    const browser = new RawBrowser();
    const [pageOne, pageTwo] = [await browser.get(one.url), await browser.get(two.url)];
    expect((await submit(browser, pageOne, { decision: "approve" })).status).toBe(200);
    expect((await submit(browser, pageTwo, { decision: "refuse" })).status).toBe(200);
    expect((await call(`/approvals/${two.id}/decision`, bobToken)).json!.data).toEqual({ id: two.id, decision: "refused" });
  });

  it("refuses an answer without the page's CSRF token (403) and leaves the request pending", async () => {
    const { id, url } = await request("E10001", "csrf");
    const browser = new RawBrowser();
    await browser.get(url);
    expect((await browser.post(url, { decision: "approve" })).status).toBe(403);
    expect((await browser.post(url, { decision: "approve", csrf: "A".repeat(43) })).status).toBe(403);
    expect((await new RawBrowser().post(url, { decision: "approve" })).status).toBe(400);
    expect((await call(`/approvals/${id}/decision`, bobToken)).json!.data).toEqual({ id, decision: "pending" });
  });

  it("tells the decision only to the account that asked (404 for anyone else, as for an unknown request)", async () => {
    const { id } = await request("E10001", "private");
    const alice = await p.provider.accessToken({ sub: "E10001", clientId: "demo-web", scope: "channel.login.scan" });
    const other = await call(`/approvals/${id}/decision`, alice);
    expect(other.status).toBe(404);
    expect(other.json).toEqual({ code: 404, msg: "no such approval request" });
    expect((await call("/approvals/no-such-id/decision", alice)).json).toEqual(other.json);
    expect((await send(`${p.channel.url}/approvals/no-such-id`)).status).toBe(404);
  });
});
