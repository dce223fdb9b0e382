import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { atCallback, ContextPerTest, DEMO_WEB_RP, startMethodSuite, type MethodSuite } from "../support/browser-methods.ts";
import { chromiumAvailable } from "../support/chromium.ts";
import { passWithCode, startEmailDelivery, startSmsDelivery, type CodeDelivery } from "../support/code-deliveries.ts";
import type { RpClient } from "../support/relying-party.ts";
import { DEMO_VENDOR_RP, vendorLink } from "../support/vendor-links.ts";

/**
 * MyVendor with the code methods (SPEC "login_type rules" 4: e-mail and SMS codes are extensions
 * enabled separately), end to end in Chromium: the demo's MyVendor type offering only `email`, then
 * only `sms`, demo-vendor as the openid-client relying party, and the codes received by a real SMTP
 * server and an SMS gateway on loopback. An account's address recorded by an operator gets its codes;
 * with enroll_on_first_use, an account without one confirms an address inside its first login.
 */
const SUITE = "MyVendor with e-mail and SMS codes (Chromium)";
const haveChromium = chromiumAvailable(SUITE);
/** A provider start-up and a browser on a busy machine: generous, never a measure of speed. */
const SETUP_MS = 120_000;
// Several page loads, a delivery and a token exchange per test: more than the default on a busy machine.
const TIMEOUT = 60_000;

interface CodeChannel {
  start(): Promise<CodeDelivery>;
  /** What the address is called in the tests' names. */
  noun: string;
  /** An address, as the vendor would type it and as the provider keeps it. */
  addressOf(n: number): { typed: string; kept: string };
  /** The enrollment page's address field and confirm button. */
  labels: { target: string; confirm: string };
}

const CHANNELS: Record<"email" | "sms", CodeChannel> = {
  email: {
    start: startEmailDelivery,
    noun: "address",
    addressOf: (n) => ({ typed: `vendor-${n}@Acme.Example`, kept: `vendor-${n}@acme.example` }),
    labels: { target: "E-mail address", confirm: "Confirm address" },
  },
  sms: {
    start: startSmsDelivery,
    noun: "number",
    addressOf: (n) => ({ typed: `+44 7700 90012${n}`, kept: `+44770090012${n}` }),
    labels: { target: "Mobile phone number", confirm: "Confirm number" },
  },
};

for (const [method, channel] of Object.entries(CHANNELS)) {
  describe.skipIf(!haveChromium)(`MyVendor with methods [${method}] in Chromium`, () => {
    let delivery: CodeDelivery;
    let suite: MethodSuite;
    let vendor: RpClient;
    const contexts = new ContextPerTest(() => suite.browser);

    beforeAll(async () => {
      delivery = await channel.start();
      suite = await startMethodSuite({
        methods: ["password"],
        clients: [DEMO_WEB_RP, DEMO_VENDOR_RP],
        edits: {
          "provider.yaml": { "security.login_requests_per_ip.max": 10_000 },
          "login.yaml": { ...delivery.edits, "login_types.MyVendor.methods": [method], "login_types.MyVendor.enroll_on_first_use": true },
        },
      });
      vendor = suite.rp.client("demo-vendor");
    }, SETUP_MS);
    afterAll(async () => {
      await suite?.close();
      await delivery?.close();
    });
    afterEach(() => contexts.close());

    /** Checks that the login ended at demo-vendor signed in as `account`: login_type MyVendor with the code and at the token endpoint, amr [method]. */
    async function signedInAtVendor(page: Page, account: string): Promise<void> {
      const { status, response } = await atCallback(page, vendor);
      expect(status).toBe(`signed in as ${account}`);
      expect(response.get("login_type")).toBe("MyVendor");
      expect(vendor.signIns.at(-1)!).toMatchObject({
        sub: account,
        tokenLoginType: "MyVendor",
        claims: { sub: account, aud: "demo-vendor", amr: [method], acr: "1fa" },
      });
    }

    it(
      `logs a vendor account in with a code sent to the ${channel.noun} an operator recorded; amr [${method}], login_type MyVendor at the token endpoint`,
      async () => {
        const account = "demo-vendor:acme-support";
        const address = channel.addressOf(1);
        // What `portcullis methods enroll 'demo-vendor:acme-support' <method> <option>=...` does (test/cli runs the command itself).
        const loaded = suite.op.provider.methods.get(method)!;
        await loaded.plugin.enrollByOperator!(loaded.context, account, { [delivery.operatorOption]: address.typed });

        const page = await contexts.page();
        await page.goto(vendor.loginUrl(vendorLink(vendor, account)));
        expect(await page.locator('input[name="password"]').count()).toBe(0);
        await passWithCode(page, delivery, address.kept);
        await signedInAtVendor(page, account);
      },
      TIMEOUT,
    );

    it(
      `sets up the ${channel.noun} of an account without one inside its first login (enroll_on_first_use), then sends its codes there`,
      async () => {
        const account = `demo-vendor:first-${method}`;
        const address = channel.addressOf(2);
        let page = await contexts.page();
        await page.goto(vendor.loginUrl(vendorLink(vendor, account)));
        await page.getByLabel(channel.labels.target).fill(address.typed);
        await page.getByRole("button", { name: "Send code" }).click();
        await page.getByLabel(delivery.codeLabel).waitFor(); // the message is out (as in passWithCode)
        await page.getByLabel(delivery.codeLabel).fill(delivery.lastCodeTo(address.kept));
        await page.getByRole("button", { name: channel.labels.confirm }).click();
        await signedInAtVendor(page, account);
        expect((await suite.op.provider.enrollments.get(method, account))?.data).toMatchObject({ target: address.kept });

        // The next login (a new browser) sends a code to the confirmed address, with no set-up again.
        await contexts.close();
        page = await contexts.page();
        await page.goto(vendor.loginUrl(vendorLink(vendor, account)));
        await passWithCode(page, delivery, address.kept);
        await signedInAtVendor(page, account);
      },
      TIMEOUT,
    );
  });
}
