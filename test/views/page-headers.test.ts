import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  contentSecurityPolicy,
  createNonce,
  originOf,
  pageHeaders,
  redirectTargetSource,
  writePage,
  type PageHeaderOptions,
} from "../../src/views/page-headers.ts";

const DEFAULT_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const NONCE = "AAAAAAAAAAAAAAAAAAAAAA";

describe("contentSecurityPolicy", () => {
  it.each<[string, PageHeaderOptions, string]>([
    ["the default", {}, DEFAULT_CSP],
    [
      "a nonce",
      { nonce: NONCE },
      `default-src 'none'; script-src 'nonce-${NONCE}'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    ],
    [
      "form_post to a client",
      { formAction: ["https://client.example"] },
      DEFAULT_CSP.replace("form-action 'self'", "form-action 'self' https://client.example"),
    ],
    [
      "front-channel frames",
      { frameSrc: ["https://a.example", "https://b.example:8443"] },
      DEFAULT_CSP.replace("form-action", "frame-src https://a.example https://b.example:8443; form-action"),
    ],
    [
      "iframe_authz ancestors",
      { frameAncestors: ["https://portal.example"] },
      DEFAULT_CSP.replace("frame-ancestors 'none'", "frame-ancestors https://portal.example"),
    ],
    ["no ancestors listed", { frameAncestors: [] }, DEFAULT_CSP],
    ["polling", { connectSrc: ["'self'"] }, DEFAULT_CSP.replace("form-action", "connect-src 'self'; form-action")],
    [
      "duplicates once",
      { formAction: ["'self'", "https://c.example", "https://c.example"] },
      DEFAULT_CSP.replace("form-action 'self'", "form-action 'self' https://c.example"),
    ],
  ])("builds %s", (_label, options, expected) => {
    expect(contentSecurityPolicy(options)).toBe(expected);
  });

  it.each([
    ["a directive separator", { formAction: ["https://a.example; script-src *"] }],
    ["a source list separator", { frameSrc: ["https://a.example,https://b.example"] }],
    ["a quote", { frameAncestors: ["'unsafe-inline'"] }],
    ["a line break", { formAction: ["https://a.example\r\nSet-Cookie: x=1"] }],
    ["a wildcard alone", { frameSrc: ["*"] }],
    ["an empty source", { formAction: [""] }],
    ["a nonce with a quote", { nonce: "abc'; script-src *" }],
    ["a short nonce", { nonce: "abc" }],
  ])("refuses %s", (_label, options) => {
    expect(() => contentSecurityPolicy(options)).toThrow();
  });
});

describe("pageHeaders", () => {
  it("sends HTML, no caching, no sniffing, no referrer, no framing", () => {
    expect(pageHeaders()).toEqual({
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
      "Content-Security-Policy": DEFAULT_CSP,
      "X-Frame-Options": "DENY",
    });
  });

  it("drops X-Frame-Options when ancestors are listed", () => {
    expect(pageHeaders({ frameAncestors: ["https://portal.example"] })).not.toHaveProperty(["X-Frame-Options"]);
  });
});

describe("createNonce and originOf", () => {
  it("makes distinct 128-bit base64url nonces", () => {
    const nonces = new Set(Array.from({ length: 100 }, createNonce));
    expect(nonces.size).toBe(100);
    for (const nonce of nonces) expect(nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(() => contentSecurityPolicy({ nonce: createNonce() })).not.toThrow();
  });

  it.each([
    ["https://client.example/cb?x=1", "https://client.example"],
    ["http://localhost:3000/cb", "http://localhost:3000"],
    ["HTTPS://Client.Example:443/cb", "https://client.example"],
    ["com.example.app:/cb", undefined],
    ["javascript:alert(1)", undefined],
    ["/relative", undefined],
  ])("originOf(%j) is %j", (url, origin) => {
    expect(originOf(url)).toBe(origin);
  });
});

describe("writePage on node:http", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      // As an earlier middleware would.
      res.setHeader("X-Frame-Options", "SAMEORIGIN");
      res.setHeader("Content-Security-Policy", "default-src *");
      const framed = req.url === "/framed";
      writePage(res, framed ? 200 : 400, "<p>héllo</p>", framed ? { frameAncestors: ["https://portal.example"] } : { nonce: NONCE });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("writes status, body and every page header, replacing earlier ones", async () => {
    const res = await fetch(`${base}/page`);
    expect(res.status).toBe(400);
    expect(await res.text()).toBe("<p>héllo</p>");
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-length")).toBe(String(Buffer.byteLength("<p>héllo</p>")));
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-security-policy")).toBe(contentSecurityPolicy({ nonce: NONCE }));
  });

  it("removes an earlier X-Frame-Options when the page may be framed", async () => {
    const res = await fetch(`${base}/framed`);
    expect(res.headers.get("x-frame-options")).toBeNull();
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors https://portal.example;");
  });
});

describe("redirectTargetSource", () => {
  it.each([
    ["https://app.example.com/cb?x=1", "https://app.example.com"],
    ["http://localhost:3001/callback", "http://localhost:3001"],
    ["com.example.app:/oauth2redirect", "com.example.app:"],
    ["acmeauth://sso/callback", "acmeauth:"],
    ["javascript:alert(1)", "'self'"],
    ["data:text/html,x", "'self'"],
    ["not a uri", "'self'"],
  ])("%s → %s", (uri, source) => {
    expect(redirectTargetSource(uri)).toBe(source);
    // Whatever it gives is a source the CSP builder accepts.
    expect(() => contentSecurityPolicy({ formAction: [redirectTargetSource(uri)] })).not.toThrow();
  });
});
