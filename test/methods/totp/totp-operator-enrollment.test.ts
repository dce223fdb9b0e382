import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generate } from "otplib";
import { afterAll, describe, expect, it } from "vitest";
import { startProvider } from "../../../src/start-provider.ts";
import { responseParams } from "../../support/browser-login.ts";
import { openMethodPage, submitStep } from "../../support/method-pages.ts";
import { RawBrowser } from "../../support/raw-browser.ts";
import { portcullis } from "../../support/run-cli.ts";
import { copyConfig } from "../../support/test-provider.ts";

/**
 * An operator enrolls TOTP for a user with the real CLI (`portcullis methods enroll USER totp`) and
 * hands over the printed otpauth:// URI; the provider started afterwards on the same store accepts
 * the app's codes. FIDO2 cannot be enrolled this way: the user's authenticator must make the key.
 */
const dataDir = mkdtempSync(join(tmpdir(), "portcullis-data-"));
const configDir = copyConfig({
  "provider.yaml": { data_dir: dataDir, "store.url": "embedded", "listen.port": 0 },
  "login.yaml": { "default_flow.methods": ["totp", "password"] },
});
afterAll(() => {
  rmSync(configDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

const methods = (...args: string[]) => portcullis(["methods", ...args, "--config", configDir]);
// Other methods of the demo config may warn on stderr (development adapters): the command's own line is the last.
const lastLine = (text: string) => text.trimEnd().split("\n").at(-1);
// Each CLI run starts a process that loads the whole provider: slow on a busy machine.
const CLI_TIMEOUT = 60_000;

describe("portcullis methods enroll USER totp", () => {
  it(
    "prints an otpauth:// URI whose codes log the user in once the provider runs",
    async () => {
      const enrolled = await methods("enroll", "bob", "totp");
      expect(enrolled.code, enrolled.stderr).toBe(0);
      expect(enrolled.stderr).not.toMatch(/totp|error/i);
      expect(enrolled.stdout).toMatch(/^otpauth:\/\/totp\/Portcullis:bob\?secret=[A-Z2-7]{32}&issuer=Portcullis\n$/);
      expect((await methods("list", "bob")).stdout).toMatch(/^totp\s+enrolled /m);

      const running = await startProvider({ configDir, port: 0 });
      try {
        // The issuer in the copied config is the demo's; the login pages are served where the provider listens.
        const issuer = running.url;
        const browser = new RawBrowser();
        const page = await openMethodPage(browser, issuer, "totp", "bob");
        expect(page.url.startsWith(issuer)).toBe(true);
        const code = await generate({ secret: new URL(enrolled.stdout.trim()).searchParams.get("secret")! });
        expect(responseParams(await submitStep(browser, page, { event: "SUBMIT_CODE", code })).get("code")).toBeTruthy();
      } finally {
        await running.close();
      }
    },
    CLI_TIMEOUT,
  );

  it(
    "refuses options it does not know",
    async () => {
      const result = await methods("enroll", "bob", "totp", "digits=8");
      expect(result.code).toBe(1);
      expect(lastLine(result.stderr)).toBe("portcullis methods: totp: takes no options (got digits)");
    },
    CLI_TIMEOUT,
  );

  it(
    "leaves FIDO2 to the user's own authenticator",
    async () => {
      const result = await methods("enroll", "bob", "fido");
      expect(result.code).toBe(1);
      expect(lastLine(result.stderr)).toBe(
        "portcullis methods: fido is enrolled by its user on the account page (/account), not by an operator",
      );
    },
    CLI_TIMEOUT,
  );
});
