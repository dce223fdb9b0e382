import { createHash } from "node:crypto";
import express from "express";
import { fromPromise } from "xstate";
import type { FactorPlugin } from "../../../src/plugin-contract/factor-plugin.ts";
import { methodManifest } from "../../../src/plugin-contract/method-manifest.ts";
import { constantTimeEqual } from "../../../src/crypto/constant-time-equal.ts";
import { pinMachine } from "./pin.machine.ts";
import { pinEnrollmentMachine } from "./pin-enrollment.machine.ts";

interface PinSettings {
  pepper: string;
}

interface PinEnrollment {
  hash: string;
}

// A test method: a plain salted SHA-256 is enough here; a real PIN method would use a slow hash.
const hashPin = (settings: PinSettings, sub: string, pin: string) =>
  createHash("sha256").update(`${settings.pepper}:${sub}:${pin}`).digest("base64url");

const pinPlugin: FactorPlugin<PinSettings> = {
  manifest: methodManifest({
    id: "pin",
    schema: {
      type: "object",
      additionalProperties: false,
      properties: { pepper: { type: "string", minLength: 8, default: "test-pepper" } },
    },
    machines: { login: pinMachine, enrollment: pinEnrollmentMachine },
  }),
  class: "untrusted",
  identifiesUser: false,
  amr: "pin",
  actors: ({ settings, attempts, enrollments }) => ({
    checkPin: fromPromise<{ ok: boolean }, { sub: string; pin: string }>(async ({ input }) => {
      if (!(await attempts.tryAttempt(input.sub))) return { ok: false };
      const enrolled = (await enrollments.get(input.sub)) as { data: PinEnrollment } | undefined;
      const ok = enrolled !== undefined && constantTimeEqual(enrolled.data.hash, hashPin(settings, input.sub, input.pin));
      if (ok) await attempts.succeeded(input.sub);
      return { ok };
    }),
    savePin: fromPromise<void, { sub: string; pin: string }>(async ({ input }) => {
      await enrollments.put(input.sub, { hash: hashPin(settings, input.sub, input.pin) });
    }),
  }),
  views: {
    pin: `<form method="post" action="{{safeUrl action}}" class="method method-pin">{{> csrf-field}}
<input type="hidden" name="event" value="SUBMIT_PIN">
<label for="pin">{{t "method.pin.prompt"}}</label><input id="pin" name="pin" inputmode="numeric" autocomplete="off">
<button type="submit">{{t "method.pin.submit"}}</button></form>`,
    choose: `<form method="post" action="{{safeUrl action}}" class="method method-pin-enroll">{{> csrf-field}}
<input type="hidden" name="event" value="CHOOSE_PIN">
<label for="pin">{{t "method.pin.choose"}}</label><input id="pin" name="pin" inputmode="numeric">
<label for="repeat">{{t "method.pin.repeat"}}</label><input id="repeat" name="repeat" inputmode="numeric">
<button type="submit">{{t "method.pin.submit"}}</button></form>`,
  },
  routes: ({ methodId }) => express.Router().get("/about", (_req, res) => void res.json({ method: methodId, digits: "4-8" })),
  async enrollByOperator({ settings, enrollments }, sub, options) {
    if (!/^[0-9]{4,8}$/.test(options.pin ?? "")) throw new Error("give pin=<4 to 8 digits>");
    await enrollments.put(sub, { hash: hashPin(settings, sub, options.pin!) });
    return `PIN set for ${sub}`;
  },
};

export default pinPlugin;
