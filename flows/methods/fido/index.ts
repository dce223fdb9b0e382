import { readFileSync } from "node:fs";
import { fromPromise } from "xstate";
import { startAuthentication, verifyAuthentication } from "./authentication.ts";
import { DecoyCredentials } from "./decoy-credentials.ts";
import { fidoEnrollmentMachine } from "./fido-enrollment.machine.ts";
import { fidoRoutes } from "./fido-routes.ts";
import { fidoConfigSchema, relyingParty, type FidoSettings } from "./fido-settings.ts";
import { fidoMachine, type FidoVerdict } from "./fido.machine.ts";
import { startRegistration, verifyRegistration } from "./registration.ts";
import type { FidoEnrollment } from "./fido-enrollment-record.ts";
import { methodManifest, type FactorPlugin } from "../../../src/plugin-contract/index.ts";

const view = (file: string) => readFileSync(new URL(file, import.meta.url), "utf8");

type Answer = { sub: string; handle: string; credential: string };

/**
 * FIDO2 / WebAuthn (untrusted class): a security key or passkey of a user the flow already identified.
 * RP id and origins from the settings (default: the issuer's), challenges kept server-side and
 * answered once, the user-verification policy from the settings, signature counters checked, several
 * credentials per user with their transports. See README.md.
 */
const fidoPlugin: FactorPlugin<FidoSettings> = {
  manifest: methodManifest({
    id: "fido",
    schema: fidoConfigSchema,
    machines: { login: fidoMachine, enrollment: fidoEnrollmentMachine },
    // Single-use challenges and claimed time steps (non-durable).
    recordKinds: { methodChallenges: { durable: false } },
  }),
  class: "untrusted",
  identifiesUser: false,
  amr: "fido",
  // Authenticators have no names under `none` attestation: a synced passkey or a security key, with dates.
  account: {
    several: true,
    items: (data) =>
      (data as FidoEnrollment).credentials.map((c) => ({
        textKey: c.deviceType === "multiDevice" ? "method.fido.account_passkey" : "method.fido.account_key",
        addedAt: c.createdAt,
        lastUsedAt: c.lastUsedAt,
      })),
  },
  actors: (context) => {
    const rp = relyingParty(context.settings, context.services.issuer);
    const deps = { context, rp, decoys: new DecoyCredentials(context.services) };
    return {
      startFidoLogin: fromPromise<{ handle: string }, { sub: string }>(async ({ input }) => ({
        handle: await startAuthentication(deps, input.sub),
      })),
      verifyFidoAssertion: fromPromise<FidoVerdict, Answer>(async ({ input }) => ({
        accepted: await verifyAuthentication(deps, input.sub, input.handle, input.credential),
      })),
      startFidoRegistration: fromPromise<{ handle: string }, { sub: string }>(async ({ input }) => ({
        handle: await startRegistration(deps, input.sub),
      })),
      verifyFidoRegistration: fromPromise<{ accepted: boolean }, Answer>(async ({ input }) => ({
        accepted: await verifyRegistration(deps, input.sub, input.handle, input.credential),
      })),
    };
  },
  views: { fido: view("./fido.hbs"), enroll: view("./fido-enroll.hbs") },
  routes: fidoRoutes,
};

export default fidoPlugin;
