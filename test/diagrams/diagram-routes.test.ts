import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mermaidStatechart } from "../../src/diagrams/mermaid-statechart.ts";
import { send, startTestProvider, type TestProvider } from "../support/test-provider.ts";

/**
 * GET /diagrams and /diagrams/<name> on a real provider whose login.yaml is not the demo's: the
 * password method and the test plugin (a method the project does not ship), both in the default
 * flow. The pages must show this deployment's machines, escaped, under the page CSP.
 */
const PIN_PLUGIN = resolve(import.meta.dirname, "../plugins/pin");
const MERMAID = readFileSync(createRequire(import.meta.url).resolve("mermaid/dist/mermaid.min.js"));

describe("diagram pages", () => {
  let op: TestProvider;

  beforeAll(async () => {
    op = await startTestProvider({
      edits: {
        "login.yaml": {
          methods: { password: {}, pin: { from: PIN_PLUGIN } },
          "default_flow.methods": ["password", "pin"],
          login_types: {},
          acr_values: {},
          // No eID login type either: the demo's upstream (whose acr mapping names the demo's 2fa) goes too.
          eid_upstreams: {},
        },
        // No login types declared: demo-vendor (clients[6]) may then name none.
        "clients.yaml": { "clients.6.allowed_login_types": [] },
      },
    });
  });
  afterAll(async () => {
    await op?.close();
  });

  const escapeHtml = (text: string) =>
    text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/=/g, "&#x3D;");

  it("lists the machines this deployment runs, each with its description", async () => {
    const res = await send(`${op.url}/diagrams`);
    expect(res.status).toBe(200);
    expect([...res.text.matchAll(/<a href="\/diagrams\/([a-z0-9-]+)">/g)].map((m) => m[1])).toEqual([
      "login",
      "identify-user",
      "channel-choice",
      "enrollment",
      "method-password",
      "method-pin",
      "method-pin-enrollment",
      "custom-login-phone",
      "custom-login-pc",
    ]);
    expect(res.text).toContain(
      '<a href="/diagrams/method-pin">method-pin</a> <span class="diagram-description">Sign-in method pin: challenge and verification.</span>',
    );
    expect(res.headers.get("content-security-policy")).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.text).not.toContain("<script");
  });

  it("shows the running login flow's statechart as escaped text, with mermaid loaded under the nonce", async () => {
    const res = await send(`${op.url}/diagrams/login`);
    expect(res.status).toBe(200);
    const source = mermaidStatechart(op.provider.policies.current().flows.get("default")!.machine);
    // The deployment's own flow: the test plugin verifies a known user, so the flow identifies the user first.
    expect(source).toContain("s_signingIn --> s_identifying : always [isUserNeeded]");
    expect(res.text).toContain(`<pre class="mermaid">${escapeHtml(source)}</pre>`);

    const csp = res.headers.get("content-security-policy")!;
    const nonce = /script-src 'nonce-([A-Za-z0-9_-]+)'/.exec(csp)![1]!;
    expect(csp).toBe(
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    );
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.text).toMatch(new RegExp(`<script nonce="${nonce}" src="/diagrams/mermaid\\.[0-9a-f]{16}\\.js"></script>`));
    expect(res.text).toContain(`<script nonce="${nonce}">\nif (window.mermaid) {`);
    expect(res.text).toContain('securityLevel: "strict"');

    const again = await send(`${op.url}/diagrams/login`);
    expect(again.headers.get("content-security-policy")).not.toContain(nonce);
  });

  it("leads from a login flow's machine hash to its diagram (an audit trace's link), and from no other hash", async () => {
    const hash = op.provider.policies.current().flows.get("default")!.hash;
    const res = await fetch(`${op.url}/diagrams/machine/${hash}`, { redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/diagrams/login");
    expect((await fetch(`${op.url}/diagrams/machine/${hash.slice(1)}x`, { redirect: "manual" })).status).toBe(404);
  });

  it("shows each plugin's machine, translated", async () => {
    const res = await send(`${op.url}/diagrams/method-pin-enrollment?lang=jp`);
    expect(res.status).toBe(200);
    expect(res.text).toContain("<h1>method-pin-enrollment</h1>");
    expect(res.text).toContain("<p>サインイン方法 pin：サインイン中のユーザーのための設定。</p>");
    expect(res.text).toContain(escapeHtml(mermaidStatechart(op.provider.methods.get("pin")!.plugin.manifest.machines.enrollment!)));
  });

  it("serves mermaid under a content-hashed name, cached for a year, with a working ETag", async () => {
    const page = await send(`${op.url}/diagrams/method-password`);
    const scriptUrl = /src="(\/diagrams\/mermaid\.[0-9a-f]{16}\.js)"/.exec(page.text)![1]!;
    const res = await fetch(`${op.url}${scriptUrl}`);
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(body.equals(MERMAID)).toBe(true);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const etag = res.headers.get("etag")!;
    const cached = await fetch(`${op.url}${scriptUrl}`, { headers: { "if-none-match": etag } });
    expect(cached.status).toBe(304);
    expect((await cached.arrayBuffer()).byteLength).toBe(0);
    const head = await fetch(`${op.url}${scriptUrl}`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(MERMAID.length));
  });

  it("serves its stylesheet the same way, linked from both pages", async () => {
    const index = await send(`${op.url}/diagrams`);
    const cssUrl = /<link rel="stylesheet" href="(\/diagrams\/diagrams\.[0-9a-f]{16}\.css)">/.exec(index.text)![1]!;
    expect((await send(`${op.url}/diagrams/login`)).text).toContain(`<link rel="stylesheet" href="${cssUrl}">`);
    const res = await send(`${op.url}${cssUrl}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.text).toContain("pre.mermaid");
  });

  it.each([
    ["an unknown diagram", "/diagrams/method-nope"],
    ["a shipped plugin this deployment does not configure", "/diagrams/method-totp"],
    ["the script under another hash", "/diagrams/mermaid.0000000000000000.js"],
    ["a path out of the directory", "/diagrams/..%2Fpackage.json"],
    ["a nested path", "/diagrams/login/x"],
  ])("answers 404 for %s", async (_label, path) => {
    expect((await send(`${op.url}${path}`)).status).toBe(404);
  });
});
