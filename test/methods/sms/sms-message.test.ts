import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeUrl, openLoginPage } from "../../support/browser-login.ts";
import { AddressedBrowser, codeIn, nextAddress, sendCode } from "../../support/code-login.ts";
import { startSmsTestGateway, type SmsTestGateway } from "../../support/sms-test-gateway.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";

/** What the text message says: the code in the login page's language, bound to this provider's origin. */
let gateway: SmsTestGateway;
let p: TestProvider;
beforeAll(async () => {
  gateway = await startSmsTestGateway();
  p = await startTestProvider({
    edits: {
      "login.yaml": {
        "methods.sms": { delivery: { kind: "http", url: `${gateway.url}/send`, format: "form", body: "number={to}&message={text}" } },
        "default_flow.methods": ["sms"],
      },
      "provider.yaml": { "listen.trust_proxy": true },
    },
  });
  const sms = p.provider.methods.get("sms")!;
  await sms.plugin.enrollByOperator!(sms.context, "E10001", { phone: "+447700900123" });
});
afterAll(async () => {
  await p?.close();
  await gateway?.close();
});

async function messageFor(lang: string): Promise<string> {
  const browser = new AddressedBrowser(nextAddress());
  const page = await openLoginPage(browser, authorizeUrl(p.issuer, { login_hint: "alice", lang }));
  expect(page.text).toContain(`name="lang" value="${lang}"`);
  await sendCode(browser, page);
  return new URLSearchParams(gateway.requests.at(-1)!.body).get("message")!;
}

describe("the SMS text", () => {
  it("is in the language of the login page, with the code and its lifetime", async () => {
    const text = await messageFor("cn");
    const code = codeIn(text);
    expect(text).toContain(`您的验证码是 ${code}，5 分钟内有效。`);
    expect(await messageFor("en")).toMatch(/^Your verification code is [0-9]{6}\. It is valid for 5 minutes\./);
  });

  it("ends with the origin-bound line (@host #code), so phones fill it in only on this site", async () => {
    const text = await messageFor("jp");
    expect(text.split("\n").at(-1)).toBe(`@${new URL(p.issuer).host} #${codeIn(text)}`);
  });
});
