/**
 * The security suite of a one-time-code method, run by test/methods/sms and test/methods/email
 * against their real delivery channel (an HTTP gateway, an SMTP server on loopback): DESIGN's
 * "Security baseline" — codes expire, work once, are superseded by a re-send; re-sends are throttled;
 * sending is limited per account and per address; every wrong code is counted, also 50 at once; a
 * lockout looks exactly like a wrong code; unknown users look like known ones and get nothing; a
 * failed delivery says "could not be sent" and nothing more; the code never reaches a log or the
 * persisted login state.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Interaction } from "../../src/runtime/interaction.ts";
import { responseParams } from "./browser-login.ts";
import { redeemCode, verifyIdToken } from "./code-grant.ts";
import { codeIn, normalisePage, openCodeLogin, otherThan, resendCode, sendCode, submitCode } from "./code-login.ts";
import { startTestProvider, type TestProvider } from "./test-provider.ts";

/** A delivery channel on loopback and how the method reaches it. */
export interface CodeChannel {
  /** `methods.<id>.delivery` pointing at this channel. */
  delivery: Record<string, unknown>;
  /** Texts delivered to `address`, oldest first. */
  textsTo(address: string): string[];
  /** Every delivery so far. */
  count(): number;
  /** Make deliveries fail (the gateway answers 500, the SMTP server refuses the recipient). */
  setFailing(failing: boolean): void;
  close(): Promise<void>;
}

export interface CodeMethodSuiteOptions {
  methodId: "sms" | "email";
  startChannel(): Promise<CodeChannel>;
  /** Where alice's codes go: enrolled by the operator command before the tests. */
  aliceTarget: string;
  /** Settings beside delivery (e.g. email: use_directory_email false, so bob has no address). */
  extraSettings?: Record<string, unknown>;
}

export function codeMethodSecuritySuite(options: CodeMethodSuiteOptions): void {
  const { methodId, aliceTarget } = options;
  const option = methodId === "sms" ? "phone" : "address";
  let channel: CodeChannel;
  let p: TestProvider;
  /** A second provider with small send budgets, for the rate-limit tests. */
  let limited: TestProvider;

  const settings = (limits: Record<string, unknown>) => ({
    delivery: channel.delivery,
    attempts: { max_failures: 5, window: "15m" },
    limits,
    ...options.extraSettings,
  });
  const start = (limits: Record<string, unknown>) =>
    startTestProvider({
      edits: {
        "login.yaml": { [`methods.${methodId}`]: settings(limits), "default_flow.methods": [methodId] },
        "provider.yaml": { "listen.trust_proxy": true },
      },
    });

  beforeAll(async () => {
    channel = await options.startChannel();
    [p, limited] = await Promise.all([start({ per_account: 1000, per_address: 1000 }), start({ per_account: 2, per_address: 2 })]);
    for (const provider of [p, limited]) {
      const method = provider.provider.methods.get(methodId)!;
      await method.plugin.enrollByOperator!(method.context, "E10001", { [option]: aliceTarget });
    }
  });
  afterAll(async () => {
    await Promise.all([p?.close(), limited?.close()]);
    await channel?.close();
  });
  afterEach(async () => {
    vi.useRealTimers();
    channel.setFailing(false);
    await p.provider.methods.get(methodId)!.context.attempts.succeeded("E10001");
  });

  const attempts = () => p.provider.methods.get(methodId)!.context.attempts;
  /** The newest code delivered to alice. */
  const latestCode = () => codeIn(channel.textsTo(aliceTarget).at(-1) ?? "");

  /** Alice's login up to the code page, and the code she received. */
  async function aliceWithCode(provider = p) {
    const { browser, page } = await openCodeLogin(provider.issuer, "alice");
    const before = channel.textsTo(aliceTarget).length;
    const codePage = await sendCode(browser, page);
    expect(codePage.status).toBe(200);
    expect(codePage.text).toContain('name="event" value="SUBMIT_CODE"');
    expect(channel.textsTo(aliceTarget)).toHaveLength(before + 1);
    return { browser, codePage, code: latestCode() };
  }

  describe(`${methodId} code security`, () => {
    it("logs alice in with the delivered code; the ID token's amr names the method", async () => {
      const { browser, codePage, code } = await aliceWithCode();
      const done = await submitCode(browser, codePage, code);
      const tokens = await redeemCode(p, responseParams(done).get("code")!, { code_verifier: undefined });
      expect(tokens.status).toBe(200);
      expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({ sub: "E10001", amr: [methodId], acr: "1fa" });
      expect(await attempts().count("E10001")).toBe(0);
    });

    it("sends nothing when the page is only looked at: the user asks for the code", async () => {
      const before = channel.count();
      const { browser, page } = await openCodeLogin(p.issuer, "alice");
      await browser.get(page.url);
      expect(channel.count()).toBe(before);
    });

    it("accepts a code once: of two concurrent submissions one logs in, and the code is useless in another login", async () => {
      const { browser, codePage, code } = await aliceWithCode();
      const answers = await Promise.all([submitCode(browser, codePage, code), submitCode(browser, codePage, code)]);
      expect(answers.filter((a) => a.status === 303 && new URL(a.location!).searchParams.has("code"))).toHaveLength(1);
      // A second login: the reused code is refused there too (its own code was never used).
      const second = await aliceWithCode();
      const refused = await submitCode(second.browser, second.codePage, code === second.code ? otherThan(code) : code);
      expect(refused.status).toBe(200);
      expect(refused.text).toContain("The code is incorrect or no longer valid.");
    });

    it("refuses a code after its five minutes (clock moved on)", async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now());
      const { browser, codePage, code } = await aliceWithCode();
      vi.setSystemTime(Date.now() + 5 * 60_000 + 1_000);
      const answer = await submitCode(browser, codePage, code);
      expect(answer.status).toBe(200);
      expect(answer.text).toContain("The code is incorrect or no longer valid.");
    });

    it("accepts a code just inside its five minutes", async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now());
      const { browser, codePage, code } = await aliceWithCode();
      vi.setSystemTime(Date.now() + 5 * 60_000 - 2_000);
      expect((await submitCode(browser, codePage, code)).status).toBe(303);
    });

    it("throttles a re-send: within 30 s nothing is sent and the first code still works", async () => {
      const { browser, codePage, code } = await aliceWithCode();
      const before = channel.count();
      const again = await resendCode(browser, codePage);
      expect(again.status).toBe(200);
      expect(again.text).toContain("A code was sent moments ago.");
      expect(channel.count()).toBe(before);
      expect((await submitCode(browser, again, code)).status).toBe(303);
    });

    it("refuses a code superseded by a re-send, and accepts the new one", async () => {
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now());
      const { browser, codePage, code: first } = await aliceWithCode();
      vi.setSystemTime(Date.now() + 31_000);
      const resent = await resendCode(browser, codePage);
      expect(resent.text).toContain("a code is on its way");
      const second = latestCode();
      if (second === first) return; // one in a million: the same six digits again, nothing to tell apart
      const refused = await submitCode(browser, resent, first);
      expect(refused.text).toContain("The code is incorrect or no longer valid.");
      expect((await submitCode(browser, refused, second)).status).toBe(303);
    });

    it("counts all of 50 concurrent wrong codes, and the locked account's right code gets the wrong code's page", async () => {
      const { browser, codePage, code } = await aliceWithCode();
      const wrong = await Promise.all(Array.from({ length: 50 }, (_, i) => submitCode(browser, codePage, otherThan(code, i + 1))));
      expect(wrong.every((a) => a.status === 200 && a.text.includes("The code is incorrect or no longer valid."))).toBe(true);
      expect(await attempts().count("E10001")).toBe(50);
      const locked = await submitCode(browser, codePage, code);
      expect(locked.status).toBe(200);
      expect(normalisePage(locked.text)).toBe(normalisePage(wrong[0]!.text));
      // Once the lock is lifted the same, still unused code works: the refusal did not consume it.
      await attempts().succeeded("E10001");
      expect((await submitCode(browser, codePage, code)).status).toBe(303);
    });

    it("shows an unknown user and a user without an address exactly alice's pages, sends them nothing, and accepts no code", async () => {
      const alice = await aliceWithCode();
      const wrongForAlice = await submitCode(alice.browser, alice.codePage, otherThan(alice.code));
      for (const name of ["nobody-here", "bob"]) {
        const before = channel.count();
        const { browser, page } = await openCodeLogin(p.issuer, name);
        const codePage = await sendCode(browser, page);
        expect(normalisePage(codePage.text), name).toBe(normalisePage(alice.codePage.text));
        expect(channel.count(), name).toBe(before);
        const answer = await submitCode(browser, codePage, alice.code);
        expect(normalisePage(answer.text), name).toBe(normalisePage(wrongForAlice.text));
      }
    });

    it("says only that the code could not be sent when delivery fails, and logs why without the code", async () => {
      channel.setFailing(true);
      const { browser, page } = await openCodeLogin(p.issuer, "alice");
      const answer = await sendCode(browser, page);
      expect(answer.status).toBe(200);
      expect(answer.text).toContain("The code could not be sent.");
      expect(answer.text).toContain('name="event" value="SEND_CODE"'); // back on the first step: try again
      expect(answer.text).not.toMatch(/HTTP 5|SMTP|550|EENVELOPE|127\.0\.0\.1/);
      const failure = p.logs.filter((l) => l.event === "code_not_sent").at(-1)!;
      expect(failure).toMatchObject({ method: methodId, sub: "E10001" });
      expect(failure.reason).toMatch(/HTTP 500|SMTP 550/);
      expect(JSON.stringify(failure)).not.toContain(aliceTarget);
      // The failed send does not hold the re-send wait: once delivery works, the retry goes out at once.
      channel.setFailing(false);
      const retry = await sendCode(browser, answer);
      expect(retry.text).toContain("a code is on its way");
      expect((await submitCode(browser, retry, latestCode())).status).toBe(303);
    });

    it("never writes a code to the log or into the persisted login state", async () => {
      const { browser, codePage, code } = await aliceWithCode();
      const wrong = otherThan(code);
      await submitCode(browser, codePage, wrong);
      const interaction = await p.provider.store
        .namespace<Interaction>("interactions")
        .get(new URL(codePage.url).pathname.split("/").pop()!);
      // As a number of its own: six digits may occur inside a millisecond timestamp by chance.
      const standalone = (digits: string) => new RegExp(`(?<![0-9])${digits}(?![0-9])`);
      expect(JSON.stringify(interaction)).not.toMatch(standalone(code));
      expect(JSON.stringify(interaction)).not.toMatch(standalone(wrong));
      await submitCode(browser, codePage, code);
      expect(p.logText()).not.toMatch(standalone(code));
      expect(p.logText()).not.toMatch(standalone(wrong));
    });

    it("limits sends per account, from any address", async () => {
      const results: string[] = [];
      for (let i = 0; i < 3; i++) {
        const { browser, page } = await openCodeLogin(limited.issuer, "alice");
        const before = channel.count();
        const answer = await sendCode(browser, page);
        results.push(channel.count() > before ? "sent" : answer.text.includes("Too many codes have been requested.") ? "limited" : "other");
      }
      expect(results).toEqual(["sent", "sent", "limited"]);
    });

    it("limits sends per client address, for any account (unknown ones included)", async () => {
      const results: string[] = [];
      for (const name of ["bob", "nobody-1", "nobody-2"]) {
        const { browser, page } = await openCodeLogin(limited.issuer, name, "203.0.113.77");
        const answer = await sendCode(browser, page);
        results.push(answer.text.includes("Too many codes have been requested.") ? "limited" : "accepted");
      }
      expect(results).toEqual(["accepted", "accepted", "limited"]);
    });
  });
}
