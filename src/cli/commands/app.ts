import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { TrustedAppClient, TrustedAppError } from "../../trusted-app/client/trusted-app-client.ts";
import { DYNAMIC_CODE_PERIOD_SECONDS } from "../../trusted-app/dynamic-code.ts";
import { CliError } from "../support/cli-error.ts";
import type { Command } from "../support/command.ts";

const USAGE = "app enroll URI [--name NAME] | app scan URI | app approve NUMBER | app deny | app code | app unenroll";

/**
 * `portcullis app ...`: the reference trusted app, playing a phone against a running provider (for
 * demos and manual tests; the test suites use the library, src/trusted-app/client/). Its device — a
 * P-256 private key and the dynamic-code seed — lives in a JSON file readable by its owner only:
 * --device FILE, else $PORTCULLIS_APP_DEVICE, else ~/.portcullis-app.json.
 *
 *   enroll URI       enrolls from the account page's (or an operator's) acmeauth://enroll URI
 *   scan URI         scans the login page's acmeauth://login URI (the page then shows a number)
 *   approve NUMBER   approves the scanned sign-in with the number the page shows
 *   deny             declines it
 *   code             prints the dynamic code (method appotp)
 *   unenroll         revokes this device at the provider
 */
export const appCommand: Command = {
  name: "app",
  summary: "the reference trusted app: enroll, scan and approve QR codes, show the dynamic code",
  positionals: { usage: "enroll|scan|approve|deny|code|unenroll [URI|NUMBER]", max: 2 },
  options: {
    device: { type: "string", valueName: "FILE", description: "the device file (default: $PORTCULLIS_APP_DEVICE, else ~/.portcullis-app.json)" },
    name: { type: "string", valueName: "NAME", description: "the device name shown on login pages (enroll; default: portcullis CLI)" },
  },
  async run({ values, positionals, stdout, env }) {
    const [action, argument] = positionals;
    const file = typeof values.device === "string" ? values.device : env.PORTCULLIS_APP_DEVICE || join(env.HOME || homedir(), ".portcullis-app.json");
    const needs = (what: string) => {
      if (!argument) throw new CliError(`${action} needs ${what}`, { showUsage: true });
      return argument;
    };
    try {
      switch (action) {
        case "enroll": {
          const uri = needs("the acmeauth://enroll URI");
          if (existsSync(file)) throw new CliError(`${file} already holds a device; unenroll it, or use --device for another file`);
          const app = await TrustedAppClient.enroll(uri, typeof values.name === "string" ? values.name : "portcullis CLI");
          await app.save(file);
          stdout.write(`enrolled device ${app.state.deviceId} for ${app.state.sub} at ${app.state.issuer}\nsaved to ${file}\n`);
          return 0;
        }
        case "scan": {
          const app = await load(file);
          await app.scan(needs("the acmeauth://login URI"));
          await app.save(file);
          stdout.write(`scanned: the sign-in page now shows a number; run "portcullis app approve <number>" (or "portcullis app deny")\n`);
          return 0;
        }
        case "approve": {
          const number = needs("the number the sign-in page shows");
          if (!/^[0-9]{1,4}$/.test(number)) throw new CliError("the number is the digits the sign-in page shows");
          const app = await load(file);
          await app.approve(number);
          await app.save(file);
          stdout.write("approved: the sign-in page continues\n");
          return 0;
        }
        case "deny": {
          const app = await load(file);
          await app.deny();
          await app.save(file);
          stdout.write("declined\n");
          return 0;
        }
        case "code": {
          const app = await load(file);
          const left = DYNAMIC_CODE_PERIOD_SECONDS - (Math.floor(Date.now() / 1000) % DYNAMIC_CODE_PERIOD_SECONDS);
          stdout.write(`${await app.code()}  (${left} s left)\n`);
          return 0;
        }
        case "unenroll": {
          const app = await load(file);
          await app.unenroll();
          stdout.write(`device ${app.state.deviceId} revoked; you may delete ${file}\n`);
          return 0;
        }
        default:
          throw new CliError(`expected ${USAGE}`, { showUsage: true });
      }
    } catch (error) {
      if (error instanceof TrustedAppError) throw new CliError(`the provider refused: ${error.error}: ${error.description}`);
      if (error instanceof CliError) throw error;
      // The library's own refusals (a QR code of another provider, nothing scanned yet) and network failures.
      throw new CliError((error as Error).message);
    }
  },
};

async function load(file: string): Promise<TrustedAppClient> {
  if (!existsSync(file)) throw new CliError(`no device in ${file}: run "portcullis app enroll <acmeauth://enroll URI>" first`);
  return TrustedAppClient.load(file);
}
