/**
 * Browser endpoints answer every refusal with an HTML error page, also those raised before the endpoint's
 * own code runs (a body over the limit, a method it does not serve); API callers keep the JSON format.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeRawConnections, sendRaw } from "../support/raw-http.ts";
import { postForm, send, startTestProvider, type TestProvider } from "../support/test-provider.ts";

const HTML = "text/html";
const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

let p: TestProvider;
let tooLarge: string;

beforeAll(async () => {
  p = await startTestProvider();
  tooLarge = `client_id=demo-web&padding=${"a".repeat(p.provider.settings.security.max_body_bytes + 1)}`;
});
afterAll(async () => {
  closeRawConnections();
  await p?.close();
});

function expectErrorPage(res: Awaited<ReturnType<typeof send>>, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain(HTML);
  expect(res.headers.get("location")).toBeNull();
  expect(res.json).toBeUndefined();
  expect(res.text).toContain("<html");
}

describe.each(["/connect/authorize", "/Account/Login", "/connect/iframe_authz", "/connect/endsession", "/connect/endsession/confirm"])(
  "%s",
  (path) => {
    it("answers a body over the limit with a 413 page, not JSON", async () => {
      expectErrorPage(await postForm(p.url + path, tooLarge), 413);
    });

    it("answers a method it does not serve with a 405 page that names the allowed methods", async () => {
      const res = await send(p.url + path, { method: "PUT" });
      expectErrorPage(res, 405);
      expect(res.headers.get("allow")).toMatch(/POST/);
    });
  },
);

describe("a GET with a body", () => {
  it("is answered from its query: the body, however large, is not read", async () => {
    const target = "/connect/authorize?client_id=demo-web&response_type=code&scope=openid";
    const body = Buffer.from(tooLarge);
    const headers = { accept: BROWSER_ACCEPT, "content-type": "application/x-www-form-urlencoded", "content-length": String(body.length) };
    const res = await sendRaw(p.url, { method: "GET", target, headers, body }, 5000);
    if (res.kind !== "answer") throw new Error(res.reason);
    // The query lacks redirect_uri: that is the refusal, not the body's size.
    expect(res.status).toBe(400);
    expect(res.headers["content-type"]).toContain(HTML);
    expect(res.text).toContain("redirect_uri");
  });
});

describe("the pages application", () => {
  it("answers an unknown path with a 404 page when a browser asks", async () => {
    expectErrorPage(await send(`${p.url}/no-such-page`, { headers: { accept: BROWSER_ACCEPT } }), 404);
  });

  it("answers an unknown path with RFC 6749 JSON when an API caller asks", async () => {
    const res = await send(`${p.url}/no-such-page`, { headers: { accept: "application/json" } });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: "not_found", error_description: "no such endpoint" });
  });

  it("answers an oversized account form with a 413 page", async () => {
    expectErrorPage(await postForm(`${p.url}/account/enroll`, tooLarge, { accept: BROWSER_ACCEPT }), 413);
  });
});
