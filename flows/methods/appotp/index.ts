import { readFileSync } from "node:fs";
import { fromPromise } from "xstate";
import { appotpMachine } from "./appotp.machine.ts";
import { DEVICE_ENROLLMENT_METHOD, methodManifest, trustedApp, type FactorPlugin } from "../../../src/plugin-contract/index.ts";

/**
 * Trusted-app dynamic code (trusted class): a TOTP (6 digits, 30 s, ±1 step) from the seed the
 * provider gave the user's phone when it was enrolled through the qrcode method, each step of each
 * device accepted once. It verifies a user the flow identified first, and enrolls nothing itself.
 */
const appotpPlugin: FactorPlugin = {
  manifest: methodManifest({
    id: "appotp",
    schema: { type: "object", additionalProperties: false, properties: {} },
    machines: { login: appotpMachine },
  }),
  class: "trusted",
  identifiesUser: false,
  amr: "appotp",
  actors: ({ services, attempts }) => {
    const app = trustedApp(services);
    return {
      checkCode: fromPromise<{ accepted: boolean }, { sub: string; code: string }>(async ({ input }) => {
        // Counted before the check, so concurrent guesses cannot all slip under the limit; a refused
        // attempt is answered like a wrong code.
        if (!(await attempts.tryAttempt(input.sub))) return { accepted: false };
        const accepted = await app.checkCode(input.sub, input.code);
        if (accepted) await attempts.succeeded(input.sub);
        return { accepted };
      }),
    };
  },
  // The phones the qrcode method enrolled produce the codes: set up (and removed) there.
  account: { setUpBy: { method: DEVICE_ENROLLMENT_METHOD } },
  views: { code: readFileSync(new URL("./code.hbs", import.meta.url), "utf8") },
};

export default appotpPlugin;
