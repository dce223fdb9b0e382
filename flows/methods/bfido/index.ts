import { readFileSync } from "node:fs";
import { fromPromise } from "xstate";
import { fidoConfigSchema, relyingParty, type FidoSettings } from "../fido/fido-settings.ts";
import { BfidoLogins } from "./bfido-logins.ts";
import { bfidoMachine, type CheckedBfidoLogin, type NewBfidoLogin } from "./bfido.machine.ts";
import { bfidoRoutes } from "./bfido-routes.ts";
import type { BfidoEnrollment } from "./bfido-credential.ts";
import { methodManifest, type FactorPlugin } from "../../../src/plugin-contract/index.ts";

/**
 * Trusted-app FIDO2 over a QR code (acr_values must_bfido; trusted class, see README.md): the login
 * page shows an acmeauth://bfido QR code with a WebAuthn challenge, and the user's enrolled trusted
 * app answers with an assertion by the FIDO2 credential it registered through its device API. It
 * identifies the user. Settings as the fido method's (RP id and origins default to the issuer's).
 */
const bfidoPlugin: FactorPlugin<FidoSettings> = {
  manifest: methodManifest({
    id: "bfido",
    schema: fidoConfigSchema,
    machines: { login: bfidoMachine },
    // Single-use challenges and claimed time steps (non-durable).
    recordKinds: { methodChallenges: { durable: false } },
  }),
  class: "trusted",
  identifiesUser: true,
  amr: "bfido",
  // Registered by the app itself (portcullis app bfido-register), listed by the phone that holds each.
  account: {
    setUpBy: "app",
    several: true,
    items: (data) =>
      (data as BfidoEnrollment).credentials.map((c) => ({
        textKey: "method.bfido.account_item",
        params: { device: c.deviceName },
        addedAt: c.createdAt,
        lastUsedAt: c.lastUsedAt,
      })),
  },
  actors: (context) => {
    const logins = new BfidoLogins(context, relyingParty(context.settings, context.services.issuer));
    return {
      createBfidoLogin: fromPromise<NewBfidoLogin, { previous?: string }>(async ({ input }) => {
        if (input.previous) await logins.discard(input.previous);
        return logins.create();
      }),
      checkBfidoLogin: fromPromise<CheckedBfidoLogin, { loginId: string }>(async ({ input }) => {
        const view = await logins.view(input.loginId);
        if (view.state !== "verified") return { state: view.state };
        const sub = await logins.consumeVerified(input.loginId);
        return sub !== undefined && (await context.services.users.isActive(sub)) ? { state: "verified", sub } : { state: "expired" };
      }),
    };
  },
  views: { scan: readFileSync(new URL("./scan.hbs", import.meta.url), "utf8") },
  routes: (context) => bfidoRoutes(context, relyingParty(context.settings, context.services.issuer)),
};

export default bfidoPlugin;
