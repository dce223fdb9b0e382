import { readFileSync } from "node:fs";
import { fromPromise } from "xstate";
import { qrcodeMachine, type ChallengeRequest, type CheckedChallenge, type NewChallenge } from "./qrcode.machine.ts";
import { qrcodeEnrollmentMachine, type CheckedEnrollment } from "./qrcode-enrollment.machine.ts";
import { qrcodeRoutes } from "./qrcode-routes.ts";
import { methodManifest, parseDuration, trustedApp, type DeviceEnrollment, type FactorPlugin } from "../../../src/plugin-contract/index.ts";

/** The method's settings in config/login.yaml (`methods.qrcode`). */
export interface QrcodeSettings {
  /** How long a login QR code may be scanned, and then approved (default 2m). */
  challenge_ttl: string;
  /** How long the enrollment QR code of the account page works (default 10m). */
  enrollment_ttl: string;
  /** How long an enrollment URI from `portcullis methods enroll USER qrcode` works (default 1d). */
  operator_enrollment_ttl: string;
}

const duration = (fallback: string, description: string) => ({
  type: "string",
  pattern: "^[0-9]+(s|m|h|d)$",
  default: fallback,
  description,
});
const view = (file: string) => readFileSync(new URL(file, import.meta.url), "utf8");

/**
 * Trusted-app QR scan (trusted class): the login page shows an acmeauth:// QR code, the user's
 * enrolled phone scans it and approves with the number the page shows. Its enrollment adds a phone
 * (a trusted-app device): the device registry lives in this method's enrollment record, so removing
 * the method revokes the user's devices. The device side is src/trusted-app/ (the /app API).
 */
const qrcodePlugin: FactorPlugin<QrcodeSettings> = {
  manifest: methodManifest({
    id: "qrcode",
    schema: {
      type: "object",
      additionalProperties: false,
      properties: {
        challenge_ttl: duration("2m", "how long a login QR code may be scanned, and then approved"),
        enrollment_ttl: duration("10m", "how long the account page's enrollment QR code works"),
        operator_enrollment_ttl: duration("1d", "how long an enrollment URI printed for an operator works"),
      },
    },
    machines: { login: qrcodeMachine, enrollment: qrcodeEnrollmentMachine },
  }),
  class: "trusted",
  identifiesUser: true,
  amr: "qrcode",
  // The active phones by the name their app gave; revoked ones are kept in the record, not shown.
  account: {
    several: true,
    items: (data) =>
      (data as DeviceEnrollment).devices.filter((d) => d.revokedAt === undefined).map((d) => ({ text: d.name, addedAt: d.createdAt })),
  },
  actors: ({ services, settings }) => {
    const app = trustedApp(services);
    const challengeTtl = parseDuration(settings.challenge_ttl) * 1000;
    const enrollmentTtl = parseDuration(settings.enrollment_ttl) * 1000;
    return {
      createChallenge: fromPromise<NewChallenge, ChallengeRequest>(async ({ input }) => {
        if (input.previous) await app.challenges.discard(input.previous);
        return app.challenges.create(challengeTtl, input.wanted);
      }),
      checkChallenge: fromPromise<CheckedChallenge, { challengeId: string }>(async ({ input }) => {
        const view = await app.challenges.view(input.challengeId);
        if (view.state === "approved") {
          const approved = await app.challenges.consumeApproved(input.challengeId);
          return approved !== undefined && (await services.users.isActive(approved.sub))
            ? { state: "approved", ...approved }
            : { state: "expired" };
        }
        if (view.state === "refused") return { state: "refused", problem: view.problem };
        if (view.state === "scanned") return { state: "scanned", deviceName: view.deviceName, number: view.number };
        return { state: view.state };
      }),
      startEnrollment: fromPromise<{ sessionId: string; expiresAt: number }, { sub: string; previous?: string }>(async ({ input }) => {
        if (input.previous) await app.enrollments.cancelSession(input.previous);
        return app.enrollments.startSession(input.sub, enrollmentTtl);
      }),
      checkEnrollment: fromPromise<CheckedEnrollment, { sub: string; sessionId: string }>(async ({ input }) => {
        const session = await app.enrollments.session(input.sessionId, input.sub);
        return session ? { state: session.state, deviceName: session.deviceName } : { state: "expired" };
      }),
    };
  },
  views: { scan: view("./scan.hbs"), approve: view("./approve.hbs"), enroll: view("./enroll.hbs") },
  routes: ({ services }) => qrcodeRoutes(services),
  async enrollByOperator({ services, settings }, sub, options) {
    const unknown = Object.keys(options).filter((key) => key !== "ttl");
    if (unknown.length > 0) throw new Error(`unknown option ${unknown[0]} (only ttl=<duration>, e.g. ttl=2h)`);
    const ttl = parseDuration(options.ttl ?? settings.operator_enrollment_ttl) * 1000;
    const { uri, expiresAt } = await trustedApp(services).enrollments.issue(sub, ttl);
    return `${uri}\nGive this to the user: their trusted app enrolls one device with it, once, until ${new Date(expiresAt).toISOString()}.`;
  },
};

export default qrcodePlugin;
