import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basic, postForm, startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { authorizeUrl, openLoginPage, responseParams, submitPassword } from "../support/browser-login.ts";

/**
 * Limits that keep a flood of logins from one place from costing everyone: a budget of login
 * requests per client address, and a bounded line for scrypt password checks.
 */
describe("login requests per client address", () => {
  let p: TestProvider;
  beforeAll(async () => {
    // The password form first: the budget counts every login form posted, choosing a method too.
    p = await startTestProvider({
      edits: {
        "provider.yaml": { "security.login_requests_per_ip": { max: 4, window: "1m" }, "listen.trust_proxy": true },
        "login.yaml": { "default_flow.methods": ["password"] },
      },
    });
  });
  afterAll(() => p.close());

  const from = (address: string) => ({ "x-forwarded-for": `203.0.113.99, ${address}` });

  it("answers logins started beyond the budget with temporarily_unavailable at the client", async () => {
    for (let i = 0; i < 4; i++)
      expect((await new RawBrowser().get(authorizeUrl(p.issuer), from("198.51.100.1"))).location).toMatch(/\/interaction\//);
    const refused = responseParams(await new RawBrowser().get(authorizeUrl(p.issuer), from("198.51.100.1")));
    expect(refused.get("error")).toBe("temporarily_unavailable");
    expect(refused.get("state")).toBe("st-1");
    // Another address (the last X-Forwarded-For entry, the one our proxy added) has its own budget.
    expect((await new RawBrowser().get(authorizeUrl(p.issuer), from("198.51.100.2"))).location).toMatch(/\/interaction\//);
  });

  it("answers login forms posted beyond the budget with a 429 page, without checking the password", async () => {
    const browser = new RawBrowser();
    const start = await browser.get(authorizeUrl(p.issuer), from("198.51.100.3"));
    const page = await browser.get(start.location!, from("198.51.100.3"));
    const post = (password: string) =>
      browser.post(
        page.url,
        { csrf: /name="csrf" value="([^"]+)"/.exec(page.text)![1]!, event: "SUBMIT_PASSWORD", username: "bob", password },
        from("198.51.100.3"),
      );
    for (let i = 0; i < 3; i++) expect((await post("wrong")).status).toBe(200);
    const refused = await post("bob-password");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await p.provider.passwordAttempts.count("bob")).toBe(3);
  });
});

describe("password checks in flight", () => {
  let p: TestProvider;
  beforeAll(async () => {
    p = await startTestProvider({ edits: { "provider.yaml": { "security.max_concurrent_password_checks": 1 } } });
  });
  afterAll(() => p.close());

  it("refuses checks beyond the line with 503 temporarily_unavailable instead of queueing without end", async () => {
    const legacy = { authorization: basic("demo-legacy", "demo-legacy-secret") };
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        postForm(`${p.url}/connect/token`, { grant_type: "password", username: `nobody-${i}`, password: "x" }, legacy),
      ),
    );
    const statuses = answers.map((a) => a.status);
    // One running and 16 waiting are answered (wrong password); the rest are refused at once (a slow
    // machine may finish a check before all 30 arrive, so more may be answered, never fewer).
    expect(statuses.every((s) => s === 400 || s === 503)).toBe(true);
    expect(statuses.filter((s) => s === 400).length).toBeGreaterThanOrEqual(17);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(answers.find((a) => a.status === 503)!.json?.error).toBe("temporarily_unavailable");
  });

  it("still logs users in through the login page", async () => {
    const browser = new RawBrowser();
    const page = await openLoginPage(browser, authorizeUrl(p.issuer));
    expect(responseParams(await submitPassword(browser, page, "alice", "alice-password")).get("code")).toBeTruthy();
  });
});
