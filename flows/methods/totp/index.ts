import { readFileSync } from "node:fs";
import { generateSecret } from "otplib";
import { fromPromise } from "xstate";
import { checkTotpCode } from "./check-totp-code.ts";
import { confirmPendingSecret, createPendingSecret, offerToShow } from "./pending-secrets.ts";
import { totpMachine } from "./totp.machine.ts";
import type { CodeVerdict } from "../../typed-code.machine.ts";
import { totpEnrollmentMachine, type Confirmation, type NewSecret } from "./totp-enrollment.machine.ts";
import { newKeyParameters, sealKey, type TotpEnrollment } from "./totp-enrollment-record.ts";
import { totpRoutes } from "./totp-routes.ts";
import { totpConfigSchema, type TotpSettings } from "./totp-settings.ts";
import { otpauthUri } from "./totp-uri.ts";
import { methodManifest, type FactorPlugin } from "../../../src/plugin-contract/index.ts";

const view = (file: string) => readFileSync(new URL(file, import.meta.url), "utf8");

/**
 * TOTP (RFC 6238, untrusted class): the code of an authenticator app, for a user the flow already
 * identified. ±1 time step, each step accepted once per user (claimed atomically in the store),
 * attempts limited per account, the secret sealed at rest. See README.md.
 */
const totpPlugin: FactorPlugin<TotpSettings> = {
  manifest: methodManifest({
    id: "totp",
    schema: totpConfigSchema,
    machines: { login: totpMachine, enrollment: totpEnrollmentMachine },
    // Single-use challenges and claimed time steps (non-durable).
    recordKinds: { methodChallenges: { durable: false } },
  }),
  class: "untrusted",
  identifiesUser: false,
  amr: "totp",
  actors: (context) => ({
    checkCode: fromPromise<CodeVerdict, { sub: string; code: string }>(async ({ input }) => ({
      accepted: await checkTotpCode(context, input.sub, input.code),
    })),
    createTotpSecret: fromPromise<NewSecret, { sub: string }>(({ input }) => createPendingSecret(context, input.sub)),
    confirmTotpSecret: fromPromise<Confirmation, { sub: string; pending: TotpEnrollment; code: string }>(async ({ input }) =>
      (await confirmPendingSecret(context, input.sub, input.pending, input.code))
        ? { accepted: true }
        : { accepted: false, displayHandle: await offerToShow(context, input.sub, input.pending) },
    ),
  }),
  views: { totp: view("./totp.hbs"), enroll: view("./totp-enroll.hbs") },
  routes: totpRoutes,
  /** A new secret for the user (replacing any earlier one); the otpauth:// URI to hand over, e.g. as a QR code. */
  async enrollByOperator(context, sub, options) {
    const unknown = Object.keys(options);
    if (unknown.length > 0) throw new Error(`takes no options (got ${unknown.join(", ")})`);
    const key = { secret: generateSecret(), ...newKeyParameters(context.settings) };
    await context.enrollments.put(sub, sealKey(context.services, context.methodId, sub, key));
    return otpauthUri(context, sub, key);
  },
};

export default totpPlugin;
