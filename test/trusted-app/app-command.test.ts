import { pluginServices } from "../../src/infra/live-services.ts";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trustedApp } from "../../src/trusted-app/trusted-app.ts";
import { responseParams } from "../support/browser-login.ts";
import { portcullis } from "../support/run-cli.ts";
import { startTestProvider, type TestProvider } from "../support/test-provider.ts";
import { numberOn, openQrLogin, operatorEnrollUri, press } from "./trusted-app-support.ts";

/** `portcullis app ...`, the reference trusted app for people, playing a phone against a running provider. */
let p: TestProvider;
const dir = mkdtempSync(join(tmpdir(), "portcullis-app-"));
const device = join(dir, "phone.json");
beforeAll(async () => {
  p = await startTestProvider();
});
afterAll(async () => {
  await p.close();
  rmSync(dir, { recursive: true, force: true });
});

const app = (...args: string[]) => portcullis(["app", ...args], { env: { PORTCULLIS_APP_DEVICE: device } });

describe("portcullis app", () => {
  it("enrolls, scans, approves with the page's number, and shows a dynamic code the provider accepts", async () => {
    const enrolled = await app("enroll", await operatorEnrollUri(p, "E10002"), "--name", "Bob's CLI");
    expect(enrolled.stderr).toBe("");
    expect(enrolled.code).toBe(0);
    expect(enrolled.stdout).toMatch(
      new RegExp(`^enrolled device [A-Za-z0-9_-]{22} for E10002 at ${p.issuer.replaceAll(".", "\\.")}\\nsaved to `),
    );
    // The file holds the private key: its owner only.
    expect(statSync(device).mode & 0o777).toBe(0o600);

    const { browser, page, uri } = await openQrLogin(p);
    const scanned = await app("scan", uri);
    expect(scanned).toMatchObject({ code: 0, stderr: "" });
    const approval = await press(browser, page, "CHECK");
    expect(approval.text).toContain("Scanned by Bob&#x27;s CLI.");
    expect(await app("approve", numberOn(approval))).toMatchObject({ code: 0, stdout: "approved: the sign-in page continues\n" });
    expect(responseParams(await press(browser, approval, "CHECK")).get("code")).toBeTruthy();

    const shown = await app("code");
    expect(shown.code).toBe(0);
    const code = /^([0-9]{6}) {2}\(\d+ s left\)\n$/.exec(shown.stdout)![1]!;
    expect(await trustedApp(pluginServices(p.provider)).checkCode("E10002", code)).toBe(true);
  });

  it("refuses to enroll over an existing device file", async () => {
    const again = await app("enroll", await operatorEnrollUri(p, "E10002"));
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already holds a device/);
  });

  it("passes the provider's refusal on as one line (a wrong number)", async () => {
    const { browser, page, uri } = await openQrLogin(p);
    await app("scan", uri);
    const approval = await press(browser, page, "CHECK");
    const wrong = numberOn(approval) === "10" ? "11" : "10";
    const refused = await app("approve", wrong);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      "portcullis app: the provider refused: access_denied: the number does not match the one on the sign-in page\n",
    );
  });

  it("refuses to approve before a scan, and a QR code of another provider", async () => {
    const fresh = join(dir, "fresh.json");
    const freshApp = (...args: string[]) => portcullis(["app", ...args], { env: { PORTCULLIS_APP_DEVICE: fresh } });
    expect((await freshApp("enroll", await operatorEnrollUri(p, "E10001"))).code).toBe(0);
    expect(await freshApp("approve", "12")).toMatchObject({
      code: 1,
      stderr: "portcullis app: no sign-in to answer: scan a QR code first\n",
    });
    expect((await freshApp("scan", "acmeauth://login?issuer=https%3A%2F%2Fphish.example&challenge=cccccccccccccccccccccc")).stderr).toMatch(
      /not from/,
    );
  });

  it("answers a missing argument, an unknown action or a missing device file with one line", async () => {
    expect((await app("scan")).code).toBe(2);
    expect((await app("fly")).code).toBe(2);
    const none = await portcullis(["app", "code"], { env: { PORTCULLIS_APP_DEVICE: join(dir, "missing.json") } });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no device in .*missing\.json/);
  });

  it("unenrolls the device at the provider", async () => {
    expect((await app("unenroll")).code).toBe(0);
    const { uri } = await openQrLogin(p);
    const refused = await app("scan", uri);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe("portcullis app: the provider refused: invalid_token: the device is not enrolled\n");
  });
});
