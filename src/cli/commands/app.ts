import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { TrustedAppClient, TrustedAppError } from "../reference-app/trusted-app-client.ts";
import { DYNAMIC_CODE_PERIOD_SECONDS } from "../../trusted-app/dynamic-code.ts";
import { CliError } from "../support/cli-error.ts";
import type { Command } from "../support/command.ts";
import { parseGpsOption, type Sensors } from "../reference-app/sensors.ts";

const USAGE =
  "app enroll URI [--name NAME] | app scan URI [--gps LAT,LNT] [--faceid pass|fail] | app approve NUMBER | app deny | app code | app sso URI [--gps ...] [--faceid ...] | app bfido-register | app bfido-scan URI | app unenroll";

/**
 * `portcullis app ...`: the reference trusted app, playing a phone against a running provider (for
 * demos and manual tests; the test suites use the library, src/cli/reference-app/). Its device — a
 * P-256 private key and the dynamic-code seed — lives in a JSON file readable by its owner only:
 * --device FILE, else $PORTCULLIS_APP_DEVICE, else ~/.portcullis-app.json.
 *
 *   enroll URI       enrolls from the account page's (or an operator's) acmeauth://enroll URI
 *   scan URI         scans the login page's acmeauth://login URI (the page then shows a number); what
 *                    the code asks for (acr_values app_gps / app_faceid) comes from --gps and --faceid,
 *                    which stand in for the phone's GPS and face check
 *   approve NUMBER   approves the scanned sign-in with the number the page shows
 *   deny             declines it
 *   code             prints the dynamic code (method appotp)
 *   sso URI          performs an acmeauth://sso/oidc entry with this device's silent-login token and
 *                    prints the redirect the provider answers (not followed)
 *   bfido-register   registers the app's FIDO2 credential (method bfido, acr_values must_bfido)
 *   bfido-scan URI   answers the login page's acmeauth://bfido URI with that credential
 *   unenroll         revokes this device at the provider
 */
export const appCommand: Command = {
  name: "app",
  summary: "the reference trusted app: enroll, scan and approve QR codes, show the dynamic code, app entries, FIDO2 (bfido)",
  positionals: { usage: "enroll|scan|approve|deny|code|sso|bfido-register|bfido-scan|unenroll [URI|NUMBER]", max: 2 },
  options: {
    device: {
      type: "string",
      valueName: "FILE",
      description: "the device file (default: $PORTCULLIS_APP_DEVICE, else ~/.portcullis-app.json)",
    },
    name: { type: "string", valueName: "NAME", description: "the device name shown on login pages (enroll; default: portcullis CLI)" },
    gps: { type: "string", valueName: "LAT,LNT", description: "the location the phone's GPS would read, in degrees (scan, sso)" },
    faceid: { type: "string", valueName: "pass|fail", description: "the outcome of the phone's face check (scan, sso)" },
  },
  async run({ values, positionals, stdout, env }) {
    const [action, argument] = positionals;
    const file =
      typeof values.device === "string" ? values.device : env.PORTCULLIS_APP_DEVICE || join(env.HOME || homedir(), ".portcullis-app.json");
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
          await app.scan(needs("the acmeauth://login URI"), sensorsOf(values));
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
        case "sso": {
          const app = await load(file);
          const { status, location, refusal } = await app.sso(needs("the acmeauth://sso/oidc URI"), sensorsOf(values));
          if (!location) throw new CliError(`the provider answered ${status} without a redirect${refusal ? `: ${refusal}` : ""}`);
          stdout.write(`${location}\n`);
          return 0;
        }
        case "bfido-register": {
          const app = await load(file);
          await app.bfidoRegister();
          await app.save(file);
          stdout.write(`registered a FIDO2 credential of this app for ${app.state.sub} (must_bfido sign-ins)\n`);
          return 0;
        }
        case "bfido-scan": {
          const app = await load(file);
          try {
            await app.bfidoScan(needs("the acmeauth://bfido URI"));
          } finally {
            // The signature counter moved, whatever the provider answered.
            await app.save(file);
          }
          stdout.write("verified: the sign-in page continues\n");
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

/** What the phone's sensors would read, from --gps and --faceid. */
function sensorsOf(values: Record<string, string | boolean | undefined>): Sensors {
  const sensors: Sensors = {};
  if (typeof values.gps === "string") {
    sensors.gps = parseGpsOption(values.gps);
    if (!sensors.gps) throw new CliError("--gps is LAT,LNT in degrees, e.g. --gps 25.03,121.56");
  }
  if (values.faceid !== undefined) {
    if (values.faceid !== "pass" && values.faceid !== "fail") throw new CliError("--faceid is pass or fail");
    sensors.faceid = values.faceid;
  }
  return sensors;
}

async function load(file: string): Promise<TrustedAppClient> {
  if (!existsSync(file)) throw new CliError(`no device in ${file}: run "portcullis app enroll <acmeauth://enroll URI>" first`);
  return TrustedAppClient.load(file);
}
