import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { RawBrowser } from "../support/raw-browser.ts";
import { authorizeUrl, choosePassword, openLoginPage, responseParams, submitPassword } from "../support/browser-login.ts";
import type { Interaction, LoginInteraction } from "../../src/runtime/interaction.ts";

let p: TestProvider;
beforeAll(async () => {
  p = await startTestProvider();
});
afterAll(() => p.close());

const interactions = () => p.provider.store.namespace<Interaction>("interactions");
const idOf = (url: string) => new URL(url).pathname.split("/").pop()!;

describe("the flow runtime over HTTP", () => {
  it("persists the snapshot with the flow id and definition hash, and never the password", async () => {
    const browser = new RawBrowser();
    const page = await openLoginPage(browser, authorizeUrl(p.issuer));
    await submitPassword(browser, page, "alice", "Secret-Typed-Password-42");
    const stored = (await interactions().get(idOf(page.url)))!;
    expect(stored.flowId).toBe("default");
    expect(stored.flowHash).toBe(p.provider.policies.current().flows.get("default")!.hash);
    expect(stored.snapshot).toBeDefined();
    expect(JSON.stringify(stored)).not.toContain("Secret-Typed-Password-42");
  });

  it("restarts an interaction whose flow changed underneath it instead of failing", async () => {
    const browser = new RawBrowser();
    const page = await openLoginPage(browser, authorizeUrl(p.issuer));
    await submitPassword(browser, page, "alice", "wrong-password");
    const id = idOf(page.url);
    const stored = (await interactions().get(id))!;
    // A snapshot of some older machine: unknown states, another hash.
    await interactions().set(
      id,
      { ...stored, flowHash: "an-older-definition", snapshot: { status: "active", value: { gone: "nowhere" }, context: {}, children: {} } },
      60_000,
    );
    const again = await choosePassword(browser, await browser.get(page.url));
    expect(again.status).toBe(200);
    expect(again.text).toContain('name="password"');
    expect(again.text).not.toContain("incorrect"); // started over: no error from the old run
    const done = await submitPassword(browser, again, "alice", "alice-password");
    expect(responseParams(done).get("code")).toBeTruthy();
  });

  it("answers 503 and keeps the previous step when the store fails during a step", async () => {
    const browser = new RawBrowser();
    const page = await openLoginPage(browser, authorizeUrl(p.issuer));
    const limiter = p.provider.methods.get("password")!.context.attempts as unknown as {
      tryAttempt: (s: string) => Promise<boolean>;
    };
    const original = limiter.tryAttempt;
    const { StoreUnavailableError } = await import("../../src/stores/store-unavailable-error.ts");
    limiter.tryAttempt = async () => {
      throw new StoreUnavailableError("embedded", new Error("down"));
    };
    try {
      const answer = await submitPassword(browser, page, "alice", "alice-password");
      expect(answer.status).toBe(503);
      expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
      expect(answer.text).toContain("temporarily_unavailable");
      expect(answer.text).not.toMatch(/at .*\.ts:\d+/); // no stack
    } finally {
      limiter.tryAttempt = original;
    }
    const retry = await submitPassword(browser, page, "alice", "alice-password");
    expect(responseParams(retry).get("code")).toBeTruthy();
  });

  it("answers an oversized login form with a page, not JSON or a 500", async () => {
    const browser = new RawBrowser();
    const page = await openLoginPage(browser, authorizeUrl(p.issuer));
    const answer = await browser.post(page.url, { csrf: "x", event: "SUBMIT_PASSWORD", username: "alice", password: "p".repeat(300_000) });
    expect(answer.status).toBe(413);
    expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
    expect(answer.text).not.toContain("ppppp");
  });

  it("completes an interaction at most once, even when a failed attempt races the successful one", async () => {
    for (let run = 0; run < 10; run++) {
      const browser = new RawBrowser();
      const page = await openLoginPage(browser, authorizeUrl(p.issuer));
      const cookies = new Map(browser.cookies);
      const answers = await Promise.all([
        submitPassword(browser, page, "alice", "alice-password"),
        submitPassword(browser, page, "alice", "wrong-password"),
      ]);
      for (const [k, v] of cookies) browser.cookies.set(k, v);
      answers.push(await submitPassword(browser, page, "alice", "alice-password"));
      const codes = answers.filter((a) => a.status === 303 && new URL(a.location!).searchParams.has("code"));
      expect(codes.length, `run ${run}`).toBe(1);
    }
  });
});

describe("a native app's private-use redirect URI", () => {
  let native: TestProvider;
  beforeAll(async () => {
    native = await startTestProvider({ edits: { "clients.yaml": { "clients.1.redirect_uris.1": "com.example.app:/oauth2redirect" } } });
  });
  afterAll(() => native.close());

  it("is allowed as the login form's redirect target, so the browser may follow the 303 to the app", async () => {
    const url = authorizeUrl(native.issuer, {
      client_id: "demo-spa",
      redirect_uri: "com.example.app:/oauth2redirect",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    });
    const page = await openLoginPage(new RawBrowser(), url);
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self' com.example.app:;");
  });

  it("ends a login page whose client was removed from the configuration, with a page, not a 500", async () => {
    const browser = new RawBrowser();
    const page = await openLoginPage(browser, authorizeUrl(native.issuer));
    const id = idOf(page.url);
    const stored = (await native.provider.store.namespace<LoginInteraction>("interactions").get(id))!;
    await native.provider.store
      .namespace<LoginInteraction>("interactions")
      .set(id, { ...stored, request: { ...stored.request, clientId: "gone-client" } }, 60_000);
    const answer = await submitPassword(browser, page, "alice", "alice-password");
    expect(answer.status).toBe(400);
    expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
  });
});
