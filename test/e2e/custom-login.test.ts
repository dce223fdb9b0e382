import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { splitPcState } from "../../src/demo/kit/split-state.ts";
import type { TrustedAppClient } from "../../src/cli/reference-app/trusted-app-client.ts";
import { chromiumAvailable, launchChromium } from "../support/chromium.ts";
import {
  BrowserParties,
  customScanOn,
  definitions,
  offeredChannels,
  PROMPTS,
  qrLink,
  waitForPrompt,
  WAIT_MS,
  type CustomScan,
} from "../support/custom-login-browser.ts";
import { startCustomLoginStack, type CustomLoginStack } from "../support/custom-login-stack.ts";
import { demoLoginDataSeal } from "../support/demo-login-data.ts";
import { enrolledPhone } from "../trusted-app/trusted-app-support.ts";

/**
 * Issue 13's "what it must show", in Chromium against the real stack in this process: the provider,
 * the channel-account service and the demo sites, each on a free loopback port. The PC browser opens
 * a page that embeds the provider's script (demo-web's with jQuery 4 and with jQuery 1.7, and the
 * fourth party's); the reference trusted app scans the QR code it draws; the phone's browser runs the
 * mobile page (demo-web's, or the channel's selector); an auditor answers in a browser of their own
 * from the channel service's inbox; the PC page then lands logged in, and its ID token's custom_scan
 * is decoded from what the landing page shows.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const SUITE = "custom QR-code login (Chromium)";
const DEMO_WEB_PAGES = [
  { path: "/custom-login", variant: "jquery-4" },
  { path: "/custom-login/legacy", variant: "jquery-1.7" },
];
/** The mobile page hands it over unchanged, bars and all (the PC page splits at the last one). */
const DATA = "order=42|approved|ü";

/** Digits only, and in the order of the story: scanned, auditor asked (when there was one), approved. */
function expectTimesInOrder(scan: CustomScan, notBefore: number): void {
  const times = scan.lt === "" ? [scan.st, scan.et] : [scan.st, scan.lt, scan.et];
  for (const time of times) expect(time).toMatch(/^\d+$/);
  expect(Number(times[0])).toBeGreaterThanOrEqual(notBefore);
  for (let i = 1; i < times.length; i++) expect(Number(times[i])).toBeGreaterThanOrEqual(Number(times[i - 1]));
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe.skipIf(!chromiumAvailable(SUITE))("the custom QR-code login in Chromium", () => {
  let stack: CustomLoginStack;
  let browser: Browser;
  let alice: TrustedAppClient;
  let bob: TrustedAppClient;
  const people = new BrowserParties(() => browser);

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startCustomLoginStack(), launchChromium()]);
    alice = await enrolledPhone(stack.op, "E10001");
    bob = await enrolledPhone(stack.op, "E10002", "Bob's phone");
  });
  afterEach(() => people.closeAll());
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  describe.each(DEMO_WEB_PAGES)("demo-web's page $path ($variant)", ({ path, variant }) => {
    const pageUrl = () => `${stack.sites.demoWebUrl}${path}`;

    it("logs the PC in as the scanner after the phone asked a manager and the manager approved", async () => {
      const pc = await people.openQrPage(pageUrl());
      const notBefore = nowSeconds();
      const mobile = await people.scan(pc, alice);
      await waitForPrompt(pc, PROMPTS.s0Prompt);
      await mobile.getByText(`Sign in on the PC as E10001 (MobileState ${variant})?`).waitFor();

      await mobile.getByLabel("Data for the PC", { exact: false }).fill(DATA);
      await mobile.getByLabel("Manager's account").fill("E10002");
      await mobile.getByRole("button", { name: "Ask a manager" }).click();
      await mobile.getByText("Waiting for E10002's approval…").waitFor();
      await waitForPrompt(pc, PROMPTS.s5Prompt);
      expect(pc.url()).toBe(pageUrl());

      await people.answerApproval(stack.channel.publicUrl, "E10002", "Approve");
      await pc.waitForURL(/\/custom-login\/pc\?/, { timeout: WAIT_MS });
      // The mobile page reloads itself while it waits; the auditor's answer ends it.
      await mobile.getByText("E10002 approved: the PC is signing in as E10001.").waitFor();

      const shown = await definitions(pc);
      expect(shown.sub).toBe("E10001");
      expect(shown["data (before the last |)"]).toBe(DATA);
      const pcState = shown["PCState (after the last |)"]!;
      expect(pcState).toMatch(new RegExp(`^${variant.replace(".", "\\.")}\\.[\\w-]{8}$`));
      expect(new URL(pc.url()).searchParams.get("state")).toBe(`${DATA}|${pcState}`);

      const scan = await customScanOn(pc);
      expect(Object.keys(scan)).toEqual(["st", "aud", "lt", "et"]);
      expect(scan.aud).toBe("E10002");
      expectTimesInOrder(scan, notBefore);
      expect(shown["aud (auditor)"]).toBe("E10002");
      expect(shown["lt (auditor asked)"]).toMatch(new RegExp(`^${scan.lt} \\(`));
      expect(people.problems).toEqual([]);
    });

    it("shows sn10Prompt when the phone refuses, stays on the QR page and logs nobody in", async () => {
      const pc = await people.openQrPage(pageUrl());
      const visited: string[] = [];
      pc.on("framenavigated", (frame) => {
        if (frame === pc.mainFrame()) visited.push(frame.url());
      });
      const mobile = await people.scan(pc, alice);
      await waitForPrompt(pc, PROMPTS.s0Prompt);
      await mobile.getByRole("button", { name: "Refuse" }).click();
      await mobile.getByText("You refused: nobody is signed in on the PC.").waitFor();

      await waitForPrompt(pc, PROMPTS.sn10Prompt);
      expect(await pc.locator("img.acme-sso-qr").isHidden()).toBe(true);
      // sn10 ends the script: it never builds the PC login form, so the page stays where it is.
      expect(await pc.locator("form").count()).toBe(0);
      expect(pc.url()).toBe(pageUrl());
      expect(visited).toEqual([]);
      expect(people.problems).toEqual([]);
    });

    it("logs the PC in when the phone confirms without a manager: custom_scan's aud and lt are empty", async () => {
      const pc = await people.openQrPage(pageUrl());
      const notBefore = nowSeconds();
      const mobile = await people.scan(pc, alice);
      await waitForPrompt(pc, PROMPTS.s0Prompt);
      await mobile.getByRole("button", { name: "Confirm" }).click();
      await mobile.getByText("The PC is signing in as E10001.").waitFor();

      await pc.waitForURL(/\/custom-login\/pc\?/, { timeout: WAIT_MS });
      const shown = await definitions(pc);
      expect(shown.sub).toBe("E10001");
      expect(shown["data (before the last |)"]).toBe("(empty)");
      const scan = await customScanOn(pc);
      expect(scan).toMatchObject({ aud: "", lt: "" });
      expectTimesInOrder(scan, notBefore);
      expect(shown["aud (auditor)"]).toBe("(empty)");
      expect(people.problems).toEqual([]);
    });
  });

  describe("the channel story on the fourth party's page", () => {
    const fourthParty = (rule: string) => `${stack.sites.fourthPartyUrl}/?rule=${rule}`;

    /** The PC on the fourth party's page with `rule`, and the channel's selector page on the phone that scanned it. */
    async function scanOnFourthParty(rule: string, phone: TrustedAppClient): Promise<{ pc: Page; selector: Page }> {
      const pc = await people.openQrPage(fourthParty(rule));
      const selector = await people.scan(pc, phone);
      await waitForPrompt(pc, PROMPTS.s0Prompt);
      return { pc, selector };
    }

    /** The fourth party's landing page after the PC login: the channel account it resolved with channelinfo. */
    async function landedAccount(pc: Page): Promise<Record<string, string>> {
      await pc.waitForURL(/\/callback\?/, { timeout: WAIT_MS });
      const shown = await definitions(pc);
      return { uid: shown.uid!, name: shown.name!, roleId: shown.roleId! };
    }

    // config/channels.yaml: alice owns north-store and operates south-store and online-shop; bob owns
    // south-store and is a temporary member of north-store.
    it.each([
      { rule: "roleIdGt1", alice: ["north-store"], bob: ["south-store"] },
      { rule: "roleIdGt0", alice: ["north-store", "south-store", "online-shop"], bob: ["south-store"] },
      { rule: "none", alice: ["north-store", "south-store", "online-shop"], bob: ["north-store", "south-store"] },
    ])("with rule $rule the selector offers alice $alice and bob $bob", async ({ rule, alice: forAlice, bob: forBob }) => {
      const { selector: alices } = await scanOnFourthParty(rule, alice);
      expect(await offeredChannels(alices)).toEqual(forAlice);
      const { selector: bobs } = await scanOnFourthParty(rule, bob);
      expect(await offeredChannels(bobs)).toEqual(forBob);
      expect(people.problems).toEqual([]);
    });

    it.each([
      { rule: "roleIdGt1", channel: "north-store", name: "North Store", roleId: "2" },
      { rule: "roleIdGt0", channel: "online-shop", name: "Online Shop", roleId: "1" },
    ])(
      "with rule $rule alice's choice of $channel logs the fourth party in with that channel account (roleId $roleId)",
      async ({ rule, channel, name, roleId }) => {
        const { pc, selector } = await scanOnFourthParty(rule, alice);
        await selector.locator(`button[name="channel"][value="${channel}"]`).click();
        await selector.getByText(`The PC is signing in with ${name}.`).waitFor();

        expect(await landedAccount(pc)).toEqual({ uid: `${channel}:E10001`, name, roleId });
        await pc.getByText(`Signed in with the channel account ${channel}:E10001.`).waitFor();
        // What reached the fourth party (and channelinfo) is the chosen channel sealed for alice, not the bare id.
        const [loginData] = splitPcState(new URL(pc.url()).searchParams.get("state")!);
        expect(demoLoginDataSeal().open(loginData, "E10001")).toEqual({ ok: true, payload: channel });
        expect(await customScanOn(pc)).toMatchObject({ aud: "", lt: "" });
        expect(people.problems).toEqual([]);
      },
    );

    it("with no rule, bob's temporary north-store login waits for the owner alice, and her approval signs the fourth party in", async () => {
      const { pc, selector } = await scanOnFourthParty("none", bob);
      await selector.locator('button[name="channel"][value="north-store"]').click();
      await selector.getByText("Waiting for E10001's approval…").waitFor();
      await waitForPrompt(pc, PROMPTS.s5Prompt);

      await people.answerApproval(stack.channel.publicUrl, "E10001", "Approve");
      expect(await landedAccount(pc)).toEqual({ uid: "north-store:E10002", name: "North Store", roleId: "0" });
      // A temporary account is accepted only because custom_scan names the approver.
      await pc.getByText("Signed in with the channel account north-store:E10002.").waitFor();
      const scan = await customScanOn(pc);
      expect(scan.aud).toBe("E10001");
      expect(scan.lt).toMatch(/^\d+$/);
      expect(people.problems).toEqual([]);
    });
  });

  describe("a QR code that expires unscanned", () => {
    /** Long, so that the renewed code outlives any slow scan; the clock is moved past it instead of waiting. */
    const QR_LIFETIME_S = 300;
    let shifted: CustomLoginStack;
    let phone: TrustedAppClient;
    /** How far the provider's (and the phone's) clock runs ahead of the machine's. */
    let ahead = 0;
    const clock = () => Date.now() + ahead;

    beforeAll(async () => {
      shifted = await startCustomLoginStack({ clock, edits: { "custom-login.yaml": { qr_lifetime: `${QR_LIFETIME_S}s` } } });
      phone = await enrolledPhone(shifted.op, "E10001", "Alice's phone", { clock });
    });
    afterAll(() => shifted?.close());

    it.each(DEMO_WEB_PAGES)("is replaced on $path ($variant) by a fresh one that logs the PC in when scanned", async ({ path }) => {
      const pc = await people.openQrPage(`${shifted.sites.demoWebUrl}${path}`);
      const first = await qrLink(pc);
      ahead += (QR_LIFETIME_S + 1) * 1000;

      await pc.waitForFunction((old) => document.querySelector("img.acme-sso-qr")?.getAttribute("data-uri") !== old, first, {
        timeout: WAIT_MS,
      });
      await waitForPrompt(pc, PROMPTS.scanPrompt);
      const renewed = await qrLink(pc);
      const sessionOf = (link: string) => new URL(link).searchParams.get("state")!.split("|")[0];
      expect(sessionOf(renewed)).not.toBe(sessionOf(first));

      const mobile = await people.scan(pc, phone);
      await waitForPrompt(pc, PROMPTS.s0Prompt);
      await mobile.getByRole("button", { name: "Confirm" }).click();
      await pc.waitForURL(/\/custom-login\/pc\?/, { timeout: WAIT_MS });
      expect((await definitions(pc)).sub).toBe("E10001");
      expect(people.problems).toEqual([]);
    });
  });
});
