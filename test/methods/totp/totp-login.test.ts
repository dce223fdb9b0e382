import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { responseParams } from "../../support/browser-login.ts";
import { redeemCode, verifyIdToken } from "../../support/code-grant.ts";
import { comparablePage, extraUsers, openMethodPage, submitStep } from "../../support/method-pages.ts";
import { RawBrowser, type Answer } from "../../support/raw-browser.ts";
import { startTestProvider, type TestProvider } from "../../support/test-provider.ts";

/**
 * TOTP login over HTTP, on the real clock: the default flow offers TOTP first, each test's user is
 * enrolled through the plugin's operator enrollment, and codes come from otplib as an app computes
 * them. What is attacked: replays, concurrent guessing, and telling a lockout from a wrong code.
 */
const USERS = ["carol", "dave", "erin", "frank", "gina"] as const;
type User = (typeof USERS)[number];

let p: TestProvider;
const secrets = new Map<User, string>();
beforeAll(async () => {
  p = await startTestProvider({
    edits: {
      "users.yaml": extraUsers(USERS),
      "login.yaml": { "default_flow.methods": ["totp", "password"] },
      // 50 concurrent guesses from one address must reach the method, not the per-address budget.
      "provider.yaml": { "security.login_requests_per_ip.max": 10_000 },
    },
  });
  const totp = p.provider.methods.get("totp")!;
  for (const username of USERS) {
    const uri = await totp.plugin.enrollByOperator!(
      totp.context,
      (await p.provider.policies.current().users.findByUsername(username))!.sub,
      {},
    );
    secrets.set(username, new URL(uri).searchParams.get("secret")!);
  }
});
afterAll(() => p.close());

const subOf = (username: User) => p.provider.policies.current().config.users.users.find((u) => u.username === username)!.sub;
const currentCode = (username: User) => generate({ secret: secrets.get(username)!, epoch: Math.floor(Date.now() / 1000) });

/** A fresh browser on `username`'s TOTP page, which posts `code`; the answer. */
async function loginWithCode(username: string, code: string): Promise<Answer> {
  const browser = new RawBrowser();
  const page = await openMethodPage(browser, p.issuer, "totp", username);
  expect(page.text).toContain('name="event" value="SUBMIT_CODE"');
  return submitStep(browser, page, { event: "SUBMIT_CODE", code });
}

const WRONG = "The code is incorrect. Wait for the next code and try again.";

describe("TOTP login", () => {
  it("logs the user in with their app's current code; the ID token's amr is [totp]", async () => {
    const answer = await loginWithCode("carol", await currentCode("carol"));
    const tokens = await redeemCode(p, responseParams(answer).get("code")!, { code_verifier: undefined });
    expect(tokens.status).toBe(200);
    expect(await verifyIdToken(p, tokens.json!.id_token as string)).toMatchObject({ sub: subOf("carol"), amr: ["totp"], acr: "1fa" });
  });

  it("refuses a code replayed in its time step, from another browser", async () => {
    const code = await currentCode("dave");
    expect(responseParams(await loginWithCode("dave", code)).get("code")).toBeTruthy();
    const replay = await loginWithCode("dave", code);
    expect(replay.status).toBe(200);
    expect(replay.text).toContain(WRONG);
  });

  it("counts every one of 50 concurrent wrong codes, locks the account, and answers the lockout exactly like a wrong code", async () => {
    const browser = new RawBrowser();
    const page = await openMethodPage(browser, p.issuer, "totp", "erin");
    const right = await currentCode("erin");
    const wrong = right === "000000" ? "111111" : "000000";
    const answers = await Promise.all(Array.from({ length: 50 }, () => submitStep(browser, page, { event: "SUBMIT_CODE", code: wrong })));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(answers.every((a) => a.text.includes(WRONG))).toBe(true);
    const totp = p.provider.methods.get("totp")!;
    expect(await totp.context.attempts.count(subOf("erin"))).toBe(50);

    // Locked: the right code now gets the very page a wrong one gets (fresh pages for both).
    const wrongAnswer = await loginWithCode("erin", wrong);
    const lockedAnswer = await loginWithCode("erin", right);
    expect(lockedAnswer.status).toBe(wrongAnswer.status);
    expect(lockedAnswer.headers.get("content-type")).toBe(wrongAnswer.headers.get("content-type"));
    expect(comparablePage(lockedAnswer.text)).toBe(comparablePage(wrongAnswer.text));
    expect(await totp.context.attempts.count(subOf("erin"))).toBe(52);
  });

  it("asks an unknown user for a code like anyone else and never accepts one", async () => {
    const known = await loginWithCode("frank", "000000");
    const unknown = await loginWithCode("nobody-here", "000000");
    expect(unknown.status).toBe(200);
    expect(unknown.text).toContain(WRONG);
    expect(comparablePage(unknown.text)).toBe(comparablePage(known.text));
    // Not even frank's current code.
    expect((await loginWithCode("nobody-here", await currentCode("frank"))).text).toContain(WRONG);
  });

  it("keeps the secret out of the store, its files and the logs in plain text", async () => {
    expect(responseParams(await loginWithCode("gina", await currentCode("gina"))).get("code")).toBeTruthy();
    const record = await p.provider.enrollments.get("totp", subOf("gina"));
    const secret = secrets.get("gina")!;
    expect(record!.data).toMatchObject({ secret: expect.stringMatching(/^v1\./), digits: 6, period: 30 });
    expect(JSON.stringify(record)).not.toContain(secret);
    const dataDir = p.provider.settings.data_dir;
    for (const file of filesUnder(dataDir)) expect(readFileSync(file, "latin1"), file).not.toContain(secret);
    expect(filesUnder(dataDir).some((f) => readFileSync(f, "latin1").includes(subOf("gina")))).toBe(true); // the journal is there to search
    expect(p.logText()).not.toContain(secret);
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
