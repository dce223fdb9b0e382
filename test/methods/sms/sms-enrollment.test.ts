import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  aliceOnAccountPage,
  changeTarget,
  codeIn,
  openCodeLogin,
  otherThan,
  sendCode,
  startEnrollment,
  submitCode,
  submitTarget,
} from "../../support/code-login.ts";
import { startSmsTestGateway, type SmsTestGateway } from "../../support/sms-test-gateway.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";

/** Phone confirmation: enrolling a number for SMS codes on the account page, and by an operator. */
let gateway: SmsTestGateway;
let p: TestProvider;
beforeAll(async () => {
  gateway = await startSmsTestGateway();
  p = await startTestProvider({
    edits: {
      "login.yaml": {
        "methods.sms": { delivery: { kind: "http", url: `${gateway.url}/send` } },
        "default_flow.methods": ["password", "sms"],
      },
      "provider.yaml": { "listen.trust_proxy": true },
    },
  });
});
afterAll(async () => {
  vi.useRealTimers();
  await p?.close();
  await gateway?.close();
});

const sms = () => p.provider.methods.get("sms")!;
const lastCodeTo = (to: string) => codeIn(gateway.messagesTo(to).at(-1)!.text);

describe("phone confirmation", () => {
  it("is offered on the account page, confirms the number with a code, and the number then receives login codes", async () => {
    await sms().context.enrollments.remove("E10001");
    const { browser, account } = await aliceOnAccountPage(p);
    expect(account.text).toContain('name="method" value="sms">Set up</button>');
    const first = await startEnrollment(p, browser, account, "sms");
    expect(first.text).toContain('type="tel"');

    const invalid = await submitTarget(browser, first, "07700 900123");
    expect(invalid.text).toContain("Enter a mobile number in international format");
    expect(gateway.messagesTo("+447700900123")).toHaveLength(0);

    const confirm = await submitTarget(browser, invalid, "+44 7700 900123");
    expect(confirm.text).toContain("We sent a code to +447700900123. It is valid for 5 minutes.");
    const code = lastCodeTo("+447700900123");
    const wrong = await submitCode(browser, confirm, otherThan(code));
    expect(wrong.text).toContain("The code is incorrect or no longer valid.");
    expect(await sms().context.enrollments.get("E10001")).toBeUndefined();

    const done = await browser.follow(await submitCode(browser, wrong, code));
    expect(done.url).toBe(`${p.url}/account?enrolled=sms`);
    expect((await sms().context.enrollments.get("E10001"))?.data).toMatchObject({ target: "+447700900123" });

    // The confirmed number now gets alice's login codes.
    const login = await openCodeLogin(p.issuer, "alice", undefined, "sms");
    const codePage = await sendCode(login.browser, login.page);
    expect((await submitCode(login.browser, codePage, lastCodeTo("+447700900123"))).status).toBe(303);
  });

  it("records the number the code went to: a code sent to an earlier number confirms nothing", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now());
    await sms().context.enrollments.remove("E10001");
    const { browser, account } = await aliceOnAccountPage(p);
    const first = await startEnrollment(p, browser, account, "sms");
    const sentToA = await submitTarget(browser, first, "+15550100001");
    const codeA = lastCodeTo("+15550100001");
    const back = await changeTarget(browser, sentToA);
    // Within the re-send wait the new number gets nothing yet.
    const tooSoon = await submitTarget(browser, back, "+15550100002");
    expect(tooSoon.text).toContain("A code was sent moments ago.");
    expect(gateway.messagesTo("+15550100002")).toHaveLength(0);
    vi.setSystemTime(Date.now() + 31_000);
    const sentToB = await submitTarget(browser, tooSoon, "+15550100002");
    const codeB = lastCodeTo("+15550100002");
    if (codeA !== codeB) {
      const refused = await submitCode(browser, sentToB, codeA);
      expect(refused.text).toContain("The code is incorrect or no longer valid.");
    }
    const done = await browser.follow(await submitCode(browser, sentToB, codeB));
    expect(done.url).toBe(`${p.url}/account?enrolled=sms`);
    expect((await sms().context.enrollments.get("E10001"))?.data).toMatchObject({ target: "+15550100002" });
    vi.useRealTimers();
  });

  it("can be done by an operator, with a number in any common form", async () => {
    const method = sms();
    expect(await method.plugin.enrollByOperator!(method.context, "E10002", { phone: "+1 555 010 7777" })).toBe(
      "phone +15550107777 recorded as confirmed for E10002 (method sms)",
    );
    expect((await method.context.enrollments.get("E10002"))?.data).toMatchObject({ target: "+15550107777" });
    await expect(method.plugin.enrollByOperator!(method.context, "E10002", { phone: "5550107777" })).rejects.toThrow(/give phone=/);
    await expect(method.plugin.enrollByOperator!(method.context, "E99999", { phone: "+15550107777" })).rejects.toThrow(/no user/);
  });

  it("is removed on the account page, after which nothing is sent to the number", async () => {
    const method = sms();
    await method.plugin.enrollByOperator!(method.context, "E10001", { phone: "+15550109999" });
    const { browser, account } = await aliceOnAccountPage(p);
    const { hiddenField } = await import("../../support/raw-browser.ts");
    await browser.post(`${p.url}/account/remove`, { csrf: hiddenField(account.text, "csrf")!, method: "sms" });
    expect(await method.context.enrollments.get("E10001")).toBeUndefined();
    const login = await openCodeLogin(p.issuer, "alice", undefined, "sms");
    const codePage = await sendCode(login.browser, login.page);
    expect(codePage.text).toContain("a code is on its way");
    expect(gateway.messagesTo("+15550109999")).toHaveLength(0);
  });
});
