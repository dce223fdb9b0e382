import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeUrl, loginWithPassword } from "../../support/browser-login.ts";
import {
  AddressedBrowser,
  aliceOnAccountPage,
  codeIn,
  nextAddress,
  openCodeLogin,
  otherThan,
  sendCode,
  startEnrollment,
  submitCode,
  submitTarget,
} from "../../support/code-login.ts";
import { startSmtpTestServer, type SmtpTestServer } from "../../support/smtp-test-server.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";

/** E-mail confirmation on the account page, the directory's address as the fallback, and the mail itself. */
let smtp: SmtpTestServer;
let p: TestProvider;
let noFallback: TestProvider;
beforeAll(async () => {
  smtp = await startSmtpTestServer();
  const start = (extra: Record<string, unknown>) =>
    startTestProvider({
      edits: {
        "login.yaml": {
          "methods.email": {
            delivery: { kind: "smtp", host: smtp.host, port: smtp.port, starttls: "never", from: '"Acme sign-in" <no-reply@acme.example>' },
            ...extra,
          },
          "default_flow.methods": ["password", "email"],
        },
        "provider.yaml": { "listen.trust_proxy": true },
      },
    });
  [p, noFallback] = await Promise.all([start({}), start({ use_directory_email: false })]);
});
afterAll(async () => {
  await Promise.all([p?.close(), noFallback?.close()]);
  await smtp?.close();
});

const email = (provider: TestProvider) => provider.provider.methods.get("email")!;
const lastMailTo = (to: string) => smtp.mailsTo(to).at(-1)!;

describe("e-mail codes", () => {
  it("go to the directory's address of a user who confirmed none, in a mail whose subject holds no code", async () => {
    await email(p).context.enrollments.remove("E10001");
    const { browser, page } = await openCodeLogin(p.issuer, "alice", undefined, "email");
    const codePage = await sendCode(browser, page);
    const mail = lastMailTo("alice@example.com");
    expect(mail.from).toBe("no-reply@acme.example");
    expect(mail.subject).toBe("Your verification code");
    const code = codeIn(mail.text);
    expect(mail.subject).not.toContain(code);
    expect(mail.text).toContain(`Your verification code is ${code}. It is valid for 5 minutes.`);
    expect((await submitCode(browser, codePage, code)).status).toBe(303);
  });

  it("go nowhere when the directory fallback is off and the user confirmed no address (same page as always)", async () => {
    const before = smtp.mails.length;
    const { browser, page } = await openCodeLogin(noFallback.issuer, "alice", undefined, "email");
    const codePage = await sendCode(browser, page);
    expect(codePage.text).toContain("If an e-mail address is known for your account, a code is on its way.");
    expect(smtp.mails.length).toBe(before);
  });
});

describe("a step-up to two factors with e-mail", () => {
  /** alice's password session, then acr_values 2fa:email: the page the step-up shows. */
  async function stepUpPage(provider: TestProvider) {
    await email(provider).context.enrollments.remove("E10001");
    const browser = new AddressedBrowser(nextAddress());
    expect((await loginWithPassword(browser, authorizeUrl(provider.issuer))).status).toBe(303);
    return { browser, page: await browser.follow(await browser.get(authorizeUrl(provider.issuer, { acr_values: "2fa:email" }))) };
  }

  it("offers the code to the directory's address of a user who confirmed none (not 'no authenticator'), and passing it makes 2fa", async () => {
    const { browser, page } = await stepUpPage(p);
    expect(page.text).not.toContain('name="password"');
    expect(page.text).toContain('name="event" value="SEND_CODE"');
    const codePage = await sendCode(browser, page);
    const done = await submitCode(browser, codePage, codeIn(lastMailTo("alice@example.com").text));
    expect(done.status).toBe(303);
    expect(new URL(done.location!).searchParams.get("code")).toBeTruthy();
  });

  it("still tells a user with no address to get codes at (the fallback off) that no authenticator is set up", async () => {
    const { page } = await stepUpPage(noFallback);
    expect(page.text).not.toContain('name="event" value="SEND_CODE"');
    expect(page.text).toContain("no authenticator set up");
  });
});

describe("e-mail confirmation", () => {
  it("confirms an address with a code on the account page; login codes then go there, not to the directory's", async () => {
    const { browser, account } = await aliceOnAccountPage(p);
    const first = await startEnrollment(p, browser, account, "email");
    expect(first.text).toContain('type="email"');
    expect((await submitTarget(browser, first, "alice@localhost")).text).toContain("Enter a valid e-mail address");
    const confirm = await submitTarget(browser, first, "Alice.Chen@Example.ORG");
    expect(confirm.text).toContain("We sent a code to Alice.Chen@example.org.");
    const code = codeIn(lastMailTo("Alice.Chen@example.org").text);
    expect((await submitCode(browser, confirm, otherThan(code))).text).toContain("The code is incorrect or no longer valid.");
    const done = await browser.follow(await submitCode(browser, confirm, code));
    expect(done.url).toBe(`${p.url}/account?enrolled=email`);
    expect((await email(p).context.enrollments.get("E10001"))?.data).toMatchObject({ target: "Alice.Chen@example.org" });

    const directoryBefore = smtp.mailsTo("alice@example.com").length;
    const login = await openCodeLogin(p.issuer, "alice", undefined, "email");
    const codePage = await sendCode(login.browser, login.page);
    expect(smtp.mailsTo("alice@example.com")).toHaveLength(directoryBefore);
    expect((await submitCode(login.browser, codePage, codeIn(lastMailTo("Alice.Chen@example.org").text))).status).toBe(303);
  });

  it("can be done by an operator", async () => {
    const method = email(p);
    expect(await method.plugin.enrollByOperator!(method.context, "E10002", { address: "bob.tran@example.org" })).toBe(
      "address bob.tran@example.org recorded as confirmed for E10002 (method email)",
    );
    await expect(method.plugin.enrollByOperator!(method.context, "E10002", { address: "not an address" })).rejects.toThrow(/give address=/);
  });
});
